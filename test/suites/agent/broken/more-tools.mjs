import { main } from './base.mjs';

await main({ moreTools: true });
