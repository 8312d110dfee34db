import { main } from './base.mjs';

// Each session's messages are served one at a time, in order (SSE): a tool call takes 3 s and
// what the session sent after it, a ping too, waits; other sessions are served meanwhile. Slow,
// and correct (JSON-RPC sets no deadline).
main({ serialCalls: 3000 });
