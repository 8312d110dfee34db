import { main } from './base.mjs';

await main({ blankQuotesCommand: true });
