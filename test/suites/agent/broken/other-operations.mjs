import { main } from './base.mjs';

await main({ otherOperations: true });
