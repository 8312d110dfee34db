import { main } from './base.mjs';

await main({ toolUsesOnlyTurn: true });
