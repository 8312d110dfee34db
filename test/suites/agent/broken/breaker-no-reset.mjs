import { main } from './base.mjs';

await main({ noResetOnSuccess: true });
