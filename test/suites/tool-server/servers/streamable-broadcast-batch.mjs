import { main } from './streamable-base.mjs';

main({ broadcast: 'batch' });
