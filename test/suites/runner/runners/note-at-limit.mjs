import { main } from './base.mjs';

await main({ noteAtLimit: true });
