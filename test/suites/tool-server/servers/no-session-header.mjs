import { main } from './base.mjs';

main({ noSessionHeader: true });
