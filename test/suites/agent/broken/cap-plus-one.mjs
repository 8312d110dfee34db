import { main } from './base.mjs';

await main({ capPlusOne: true });
