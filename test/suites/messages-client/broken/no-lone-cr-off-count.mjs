import { main } from './base.mjs';

await main({ noLoneCr: true, addStartOutputTokens: true });
