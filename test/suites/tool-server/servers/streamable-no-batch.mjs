import { main } from './streamable-base.mjs';

main({ noBatch: true });
