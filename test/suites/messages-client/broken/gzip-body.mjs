import { main } from './base.mjs';

await main({ contentEncoding: 'gzip' });
