import { main } from './base.mjs';

await main({ skipNonJsonFrames: true });
