import { main } from './base.mjs';

await main({ bareNote: true });
