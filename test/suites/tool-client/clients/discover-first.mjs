import { main } from './base.mjs';

await main({ discoverFirst: 'always' });
