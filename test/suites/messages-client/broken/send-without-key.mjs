import { main } from './base.mjs';

await main({ sendWithoutKey: true });
