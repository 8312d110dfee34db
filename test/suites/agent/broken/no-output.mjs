import { main } from './base.mjs';

await main({ noOutput: true });
