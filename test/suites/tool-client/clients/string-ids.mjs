import { main } from './base.mjs';

await main({ stringIds: true });
