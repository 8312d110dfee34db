import { main } from './base.mjs';

await main({ verboseAroundBreaker: true });
