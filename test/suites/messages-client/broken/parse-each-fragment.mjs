import { main } from './base.mjs';

await main({ parseEachFragment: true });
