import { main } from './base.mjs';

await main({ noSeparator: true });
