import { main } from './base.mjs';

await main({ alwaysPrefix: true });
