import { main } from './base.mjs';

await main({ mismatchedIds: true });
