import { main } from './base.mjs';

await main({ skipTypeMismatch: true });
