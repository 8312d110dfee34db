import { main } from './base.mjs';

await main({ breakerAt: 2 });
