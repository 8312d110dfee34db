import { main } from './base.mjs';

await main({ inheritEnv: true });
