import { main } from './base.mjs';

await main({ traceConversation: true, noOperatorLine: true });
