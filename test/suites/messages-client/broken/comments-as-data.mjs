import { main } from './base.mjs';

await main({ commentsAsData: true });
