import { main } from './base.mjs';

await main({ keepOutput: true });
