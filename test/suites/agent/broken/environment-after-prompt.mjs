import { main } from './base.mjs';

await main({ environmentAfterPrompt: true });
