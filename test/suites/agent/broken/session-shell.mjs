import { main } from './base.mjs';

await main({ sessionShell: true });
