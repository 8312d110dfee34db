import { main } from './base.mjs';

await main({ zeroMaxTokens: true });
