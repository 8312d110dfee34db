import { main } from './base.mjs';

await main({ oneShot: true });
