import { main } from './base.mjs';

await main({ noRefusal: true, refuseCompound: true });
