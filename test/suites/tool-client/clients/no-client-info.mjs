import { main } from './base.mjs';

await main({ noClientInfo: true });
