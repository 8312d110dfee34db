import { main } from './base.mjs';

await main({ inheritPath: true });
