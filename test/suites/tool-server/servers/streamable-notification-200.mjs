import { main } from './streamable-base.mjs';

main({ notification200: true });
