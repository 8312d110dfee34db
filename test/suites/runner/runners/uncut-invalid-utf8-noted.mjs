import { main } from './base.mjs';

await main({ uncutInvalidUtf8: 'noted' });
