import { main } from './base.mjs';

await main({ promptFromArgv: true });
