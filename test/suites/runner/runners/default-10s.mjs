import { main } from './base.mjs';

await main({ defaultTimeoutS: 10 });
