import { main } from './base.mjs';

await main({ keyOnce: true });
