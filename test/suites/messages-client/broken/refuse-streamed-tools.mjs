import { main } from './base.mjs';

await main({ refuseStreamedTools: true });
