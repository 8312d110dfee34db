import { main } from './base.mjs';

await main({ resultTurnEach: true });
