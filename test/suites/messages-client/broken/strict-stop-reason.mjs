import { main } from './base.mjs';

await main({ strictStopReason: true });
