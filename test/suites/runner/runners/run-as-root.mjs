import { main } from './base.mjs';

await main({ runAsRoot: true });
