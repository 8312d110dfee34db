import { main } from './base.mjs';

await main({ crashOnBadWorkdir: true });
