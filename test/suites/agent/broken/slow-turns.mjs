import { main } from './base.mjs';

// Not a flaw: its default cap is 8, and each turn takes 600 ms more.
await main({ turnDelayMs: 600 });
