import { main } from './base.mjs';

await main({ retry429: 'after-retry-after' });
