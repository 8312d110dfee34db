import { main } from './base.mjs';

await main({ newTurnsOnly: true, exitZeroOnApiError: true });
