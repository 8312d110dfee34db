import { main } from './base.mjs';

await main({ customBash: true });
