import { main } from './base.mjs';

main({ loseHeaderOnly: true });
