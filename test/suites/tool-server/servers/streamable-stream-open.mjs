import { main } from './streamable-base.mjs';

main({ streamOpen: true });
