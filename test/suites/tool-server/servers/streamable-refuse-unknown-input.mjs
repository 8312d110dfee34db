import { main } from './streamable-base.mjs';

main({ refuseUnknownInput: true });
