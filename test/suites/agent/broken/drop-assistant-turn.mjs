import { main } from './base.mjs';

await main({ dropAssistantTurn: true });
