import { main } from './base.mjs';

await main({ lastDataLineOnly: true });
