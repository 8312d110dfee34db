import { main } from './base.mjs';

await main({ retryAfterAsRateLimit: true });
