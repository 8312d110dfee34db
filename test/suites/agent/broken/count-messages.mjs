import { main } from './base.mjs';

await main({ countMessages: true });
