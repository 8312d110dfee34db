import { main } from './base.mjs';

await main({ labelledOutput: true });
