import { main } from './base.mjs';

await main({ noRetry: true });
