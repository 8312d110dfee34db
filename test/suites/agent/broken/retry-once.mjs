import { main } from './base.mjs';

await main({ retryOnce: true });
