import { main } from './base.mjs';

await main({ refuseSetsid: true });
