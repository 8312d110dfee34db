import { main } from './base.mjs';

main({ unknownToolUnnamed: true });
