import { main } from './base.mjs';

await main({ trimTrailingNewlines: true });
