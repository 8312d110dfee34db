import { main } from './base.mjs';

// At most 6 SSE sessions at once; a stream past them is refused 503 until one closes (conforming).
main({ maxSessions: 6 });
