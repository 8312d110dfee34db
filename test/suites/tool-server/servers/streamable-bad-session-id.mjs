import { main } from './streamable-base.mjs';

main({ badSessionId: true });
