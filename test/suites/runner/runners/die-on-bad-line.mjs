import { main } from './base.mjs';

await main({ dieOnBadLine: true });
