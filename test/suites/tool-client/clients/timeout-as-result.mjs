import { main } from './base.mjs';

await main({ callTimeoutMs: 500, timeoutAsResult: true });
