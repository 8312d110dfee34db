import { main } from './streamable-base.mjs';

// At most 2 sessions (503 past them) and any Origin accepted: it does not validate Origin, and at capacity it refuses every new session, whatever its Origin.
main({ anyOrigin: true, maxSessions: 2 });
