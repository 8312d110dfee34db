import { main } from './base.mjs';

main({ crashOnMalformed: true });
