import { main } from './base.mjs';

await main({ lineLimit: true });
