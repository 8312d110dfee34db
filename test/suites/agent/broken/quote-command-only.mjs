import { main } from './base.mjs';

await main({ quoteCommandOnly: true });
