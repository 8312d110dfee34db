import { main } from './streamable-base.mjs';

main({ eventIds: true, sameIds: true });
