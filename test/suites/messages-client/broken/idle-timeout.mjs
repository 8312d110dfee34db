import { main } from './base.mjs';

await main({ idleTimeoutMs: 3000 });
