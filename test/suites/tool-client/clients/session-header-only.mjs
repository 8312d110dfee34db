import { main } from './base.mjs';

await main({ sseSessionHeader: true });
