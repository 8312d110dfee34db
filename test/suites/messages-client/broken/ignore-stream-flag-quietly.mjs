import { main } from './base.mjs';

await main({ ignoreStreamFlag: true, nonJsonBodyAsStream: true });
