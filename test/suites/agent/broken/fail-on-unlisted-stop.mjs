import { main } from './base.mjs';

await main({ failOnUnlistedStop: true });
