import { main } from './base.mjs';

await main({ ignorePing: true });
