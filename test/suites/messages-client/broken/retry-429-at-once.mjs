import { main } from './base.mjs';

await main({ retry429: 'at-once' });
