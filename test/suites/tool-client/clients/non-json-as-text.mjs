import { main } from './base.mjs';

await main({ nonJsonAsText: true });
