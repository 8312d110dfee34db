import { main } from './base.mjs';

await main({ defaultCap: 60 });
