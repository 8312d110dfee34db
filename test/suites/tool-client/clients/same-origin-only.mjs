import { main } from './base.mjs';

main({ sameOriginOnly: true });
