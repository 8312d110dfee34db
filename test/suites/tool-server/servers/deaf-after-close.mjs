import { main } from './base.mjs';

main({ deafAfterClose: true });
