import { main } from './base.mjs';

// At most 3 SSE sessions at once: with the suite's main and idle streams open, one left (conforming).
main({ maxSessions: 3 });
