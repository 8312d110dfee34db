import { main } from './base.mjs';

await main({ reminderAfterResults: true });
