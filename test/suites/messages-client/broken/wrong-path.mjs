import { main } from './base.mjs';

// Reads WIRECHECK_BASE_URL as if it ended in /v1, which the contract says it does not.
await main({ path: '/messages' });
