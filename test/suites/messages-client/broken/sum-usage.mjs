import { main } from './base.mjs';

await main({ sumUsage: true });
