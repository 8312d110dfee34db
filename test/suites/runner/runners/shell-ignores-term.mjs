import { main } from './base.mjs';

await main({ shellIgnoresTerm: true });
