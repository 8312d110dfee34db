import { main } from './base.mjs';

await main({ refusesUnlisted: true });
