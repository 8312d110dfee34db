import { main } from './base.mjs';

await main({ strictBlocks: true });
