import { main } from './base.mjs';

await main({ alwaysSeparator: true });
