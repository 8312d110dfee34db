import { main } from './streamable-base.mjs';

main({ getUnflushed: true });
