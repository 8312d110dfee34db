import { main } from './base.mjs';

await main({ strictUtf8: true });
