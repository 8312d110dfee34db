import { main } from './base.mjs';

await main({ crashOnPing: true, addStartOutputTokens: true });
