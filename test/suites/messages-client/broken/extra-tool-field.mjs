import { main } from './base.mjs';

await main({ extraToolField: true });
