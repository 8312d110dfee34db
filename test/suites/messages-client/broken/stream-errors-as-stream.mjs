import { main } from './base.mjs';

await main({ streamErrorsAsStream: true });
