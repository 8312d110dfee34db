import { main } from './base.mjs';

await main({ crashOnComment: true });
