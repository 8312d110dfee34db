import { main } from './base.mjs';

await main({ noCap: true, turnDelayMs: 40 });
