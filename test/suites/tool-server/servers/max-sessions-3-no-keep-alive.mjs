import { main } from './base.mjs';

// At most 3 SSE sessions at once, and no keep-alive on an idle stream (broken): the keep-alive
// check must still fail when the suite let its first idle stream go for a check's sessions.
main({ maxSessions: 3, noKeepAlive: true });
