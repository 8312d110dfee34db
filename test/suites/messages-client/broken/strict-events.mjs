import { main } from './base.mjs';

await main({ strictEvents: true });
