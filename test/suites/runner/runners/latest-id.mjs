import { main } from './base.mjs';

await main({ latestId: true });
