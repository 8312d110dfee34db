import { main } from './base.mjs';

await main({ noPidNamespace: true });
