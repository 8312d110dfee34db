import { main } from './base.mjs';

await main({ sameId: true });
