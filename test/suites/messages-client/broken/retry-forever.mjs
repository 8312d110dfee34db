import { main } from './base.mjs';

await main({ retryForever: true });
