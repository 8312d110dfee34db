import { main } from './streamable-base.mjs';

// At most 6 sessions at once; initialize past them is refused 503 until one is deleted (conforming).
main({ maxSessions: 6 });
