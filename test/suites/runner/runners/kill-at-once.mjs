import { main } from './base.mjs';

await main({ killAtOnce: true });
