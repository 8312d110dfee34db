import { main } from './base.mjs';

main({ silentOnMalformed: true });
