import { main } from './base.mjs';

await main({ neverStops: true });
