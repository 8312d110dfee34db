import { main } from './base.mjs';

await main({ waitForPipes: true });
