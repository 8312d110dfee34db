import { main } from './base.mjs';

await main({ dropArguments: true });
