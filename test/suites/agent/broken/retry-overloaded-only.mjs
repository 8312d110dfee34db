import { main } from './base.mjs';

await main({ retryOverloadedOnly: true });
