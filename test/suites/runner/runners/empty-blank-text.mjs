import { main } from './base.mjs';

await main({ emptyBlankText: true });
