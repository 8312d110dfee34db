import { main } from './base.mjs';

await main({ blocklistEmptyEntry: true });
