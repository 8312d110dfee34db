import { main } from './base.mjs';

await main({ graceMs: 6000 });
