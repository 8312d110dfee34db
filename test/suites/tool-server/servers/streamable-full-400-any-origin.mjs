import { main } from './streamable-base.mjs';

// At most 2 sessions (400 past them) and any Origin accepted: it does not validate Origin; its refusal of a new session is a 4xx, with or without an Origin.
main({ anyOrigin: true, maxSessions: 2, capacityStatus: 400 });
