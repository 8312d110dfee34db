import { main } from './base.mjs';

await main({ wrongResult: true });
