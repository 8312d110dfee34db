import { main } from './base.mjs';

await main({ neverCalls: true });
