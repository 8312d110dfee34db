import { main } from './base.mjs';

await main({ operatorLine: 'Circuit breaker tripped after 3 consecutive failures. Awaiting instructions.' });
