import { main } from './base.mjs';

main({ silentOnCursor: true });
