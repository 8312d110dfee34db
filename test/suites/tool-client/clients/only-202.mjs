import { main } from './base.mjs';

await main({ only202: true });
