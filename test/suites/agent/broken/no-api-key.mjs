import { main } from './base.mjs';

await main({ noApiKey: true });
