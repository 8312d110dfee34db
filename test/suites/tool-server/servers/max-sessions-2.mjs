import { main } from './base.mjs';

// At most 2 SSE sessions at once: the suite's main and idle streams fill it, and once the idle
// stream lets its session go, one is left for a check (conforming).
main({ maxSessions: 2 });
