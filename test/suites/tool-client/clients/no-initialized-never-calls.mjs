import { main } from './base.mjs';

await main({ noInitialized: true, neverCalls: true });
