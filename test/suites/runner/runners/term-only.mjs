import { main } from './base.mjs';

await main({ termOnly: true });
