import { main } from './base.mjs';

await main({ cutByCharacters: true });
