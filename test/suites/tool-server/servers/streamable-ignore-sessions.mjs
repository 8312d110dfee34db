import { main } from './streamable-base.mjs';

main({ ignoreSessions: true });
