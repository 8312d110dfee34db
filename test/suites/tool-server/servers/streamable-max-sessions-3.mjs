import { main } from './streamable-base.mjs';

// At most 3 sessions at once: beside the suite's main session and the one its Streamable HTTP
// checks share, one is left; initialize past them is refused 503 until one is deleted (conforming).
main({ maxSessions: 3 });
