import { main } from './base.mjs';

await main({ contentType: null });
