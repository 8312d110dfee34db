import { main } from './base.mjs';

// Every tool call is answered 4 s late, past the test suite's 1.5 s reply budget, while the
// server answers everything else (a ping) at once: a slow tool, not a server gone.
main({ slowAsyncCalls: 4000 });
