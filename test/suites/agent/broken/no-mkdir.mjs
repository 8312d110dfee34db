import { main } from './base.mjs';

await main({ noMkdir: true });
