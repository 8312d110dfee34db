import { main } from './base.mjs';

await main({ runInCwd: true, noRefusal: true });
