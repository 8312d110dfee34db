import { main } from './base.mjs';

main({ broadcast: true });
