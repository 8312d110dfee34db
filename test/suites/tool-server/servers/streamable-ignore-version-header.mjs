import { main } from './streamable-base.mjs';

main({ ignoreVersionHeader: true });
