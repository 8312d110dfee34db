import { main } from './base.mjs';

await main({ throwOnFailure: true });
