import { main } from './streamable-base.mjs';

main({ broadcast: true, getUnflushed: true });
