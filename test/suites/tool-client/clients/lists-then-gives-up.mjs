import { main } from './base.mjs';

await main({ listsThenGivesUp: true });
