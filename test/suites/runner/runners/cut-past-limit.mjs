import { main } from './base.mjs';

await main({ cutPastLimit: true });
