import { main } from './base.mjs';

await main({ ignoreMaxTurns: true, defaultCap: 5 });
