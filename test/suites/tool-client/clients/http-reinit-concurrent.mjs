import { main } from './base.mjs';

// Streamable HTTP: tools/list and tools/call at once; every request answered 404 for the ended
// session waits for one new session, then goes again (a conforming client).
await main({ httpConcurrent: true });
