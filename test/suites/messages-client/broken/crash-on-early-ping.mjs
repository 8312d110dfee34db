import { main } from './base.mjs';

await main({ crashOnEarlyPing: true });
