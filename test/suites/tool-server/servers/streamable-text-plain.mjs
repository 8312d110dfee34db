import { main } from './streamable-base.mjs';

main({ textPlain: true });
