import { main } from './base.mjs';

await main({ noIsError: true });
