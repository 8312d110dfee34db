import { main } from './base.mjs';

await main({ discoverFirst: 'without-arguments' });
