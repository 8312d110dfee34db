import { main } from './base.mjs';

await main({ addStartOutputTokens: true });
