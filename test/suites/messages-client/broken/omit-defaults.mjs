import { main } from './base.mjs';

await main({ omitDefaults: true });
