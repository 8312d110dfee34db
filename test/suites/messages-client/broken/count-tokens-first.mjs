import { main } from './base.mjs';

await main({ countTokensFirst: true });
