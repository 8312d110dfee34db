import { main } from './base.mjs';

await main({ banner: true });
