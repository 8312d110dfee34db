import { main } from './streamable-base.mjs';

main({ getReset: true });
