import { main } from './base.mjs';

// Its first request carries a 33 MiB system prompt: over the real API's request size limit.
await main({ oversizedFirstRequest: true });
