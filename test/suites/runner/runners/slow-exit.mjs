import { main } from './base.mjs';

await main({ exitDelayMs: 5000 });
