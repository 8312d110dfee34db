import { main } from './base.mjs';

await main({ isErrorOnStderr: true });
