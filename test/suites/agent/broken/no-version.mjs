import { main } from './base.mjs';

await main({ noVersion: true });
