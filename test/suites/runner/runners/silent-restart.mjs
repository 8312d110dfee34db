import { main } from './base.mjs';

await main({ silentRestart: true });
