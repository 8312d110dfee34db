import { main } from './base.mjs';

await main({ path: '/v1/messages/count_tokens' });
