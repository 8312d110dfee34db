import { main } from './base.mjs';

// Misroutes only requests that offer no tools: the shared cases of the request checks offer tools.
await main({ path: '/messages', pathOnlyWithoutTools: true });
