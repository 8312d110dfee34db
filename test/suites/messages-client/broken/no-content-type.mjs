import { main } from './base.mjs';

await main({ noContentType: true });
