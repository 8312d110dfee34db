import { main } from './base.mjs';

await main({ restartUnanswered: true });
