import { main } from './base.mjs';

await main({ ignoreWorkdir: true });
