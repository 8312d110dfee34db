import { main } from './base.mjs';

await main({ temperature: 2 });
