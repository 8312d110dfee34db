import { main } from './base.mjs';

await main({ splitAssistantTurn: true });
