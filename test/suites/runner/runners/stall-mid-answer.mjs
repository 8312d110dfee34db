import { main } from './base.mjs';

await main({ stallOnContent: 'out\n' });
