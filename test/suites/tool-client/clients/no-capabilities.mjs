import { main } from './base.mjs';

await main({ noCapabilities: true });
