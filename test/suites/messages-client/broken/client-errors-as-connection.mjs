import { main } from './base.mjs';

await main({ otherClientErrorsAsConnection: true });
