import { main } from './base.mjs';

await main({ countOrder: 'failures-first' });
