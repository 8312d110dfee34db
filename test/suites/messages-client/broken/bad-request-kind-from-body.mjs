import { main } from './base.mjs';

await main({ badRequestKindFromBody: true });
