import { main } from './base.mjs';

await main({ refusalQuotesCommand: true });
