import { main } from './base.mjs';

await main({ keepExports: true, trimTrailingNewlines: true });
