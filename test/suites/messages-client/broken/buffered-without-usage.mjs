import { main } from './base.mjs';

await main({ bufferedWithoutUsage: true });
