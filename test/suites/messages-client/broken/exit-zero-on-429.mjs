import { main } from './base.mjs';

await main({ exitZeroOn429: true });
