import { main } from './base.mjs';

await main({ replacementAtCut: true });
