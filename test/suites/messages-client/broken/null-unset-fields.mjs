import { main } from './base.mjs';

await main({ nullUnsetFields: true });
