import { main } from './base.mjs';

await main({ continueOnMaxTokens: true });
