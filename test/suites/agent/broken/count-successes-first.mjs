import { main } from './base.mjs';

await main({ countOrder: 'successes-first' });
