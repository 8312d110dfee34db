import { main } from './base.mjs';

await main({ reverseResults: true });
