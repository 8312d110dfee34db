import { main } from './base.mjs';

await main({ inheritUser: true });
