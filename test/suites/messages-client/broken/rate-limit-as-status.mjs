import { main } from './base.mjs';

await main({ rateLimitAsStatus: true });
