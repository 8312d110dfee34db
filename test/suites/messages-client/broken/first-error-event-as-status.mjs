import { main } from './base.mjs';

await main({ firstErrorEventAsStatus: true });
