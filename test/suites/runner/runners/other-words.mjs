import { main } from './base.mjs';

await main({ otherWords: true });
