import { main } from './streamable-base.mjs';

main({ anyOrigin: true });
