import { main } from './base.mjs';

await main({ floodPings: true });
