import { main } from './streamable-base.mjs';

// At most 2 sessions at once: beside the suite's main session, one is left; initialize past them
// is refused 503 until one is deleted (conforming).
main({ maxSessions: 2 });
