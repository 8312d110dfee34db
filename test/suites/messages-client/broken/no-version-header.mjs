import { main } from './base.mjs';

await main({ noVersionHeader: true });
