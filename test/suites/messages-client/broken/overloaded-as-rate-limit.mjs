import { main } from './base.mjs';

await main({ overloadedAsRateLimit: true });
