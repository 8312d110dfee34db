import { main } from './base.mjs';

await main({ timeoutDropsOutput: true });
