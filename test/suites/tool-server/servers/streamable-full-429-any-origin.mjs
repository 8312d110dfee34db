import { main } from './streamable-base.mjs';

// At most 2 sessions (429 past them) and any Origin accepted: it does not validate Origin.
main({ anyOrigin: true, maxSessions: 2, capacityStatus: 429 });
