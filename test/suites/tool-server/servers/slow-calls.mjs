import { main } from './base.mjs';

// Every tool call takes 3.5 s, longer than the test suite's reply budgets of the call and of
// the ping after it (1.5 s each): the server serves one request at a time, so the ping waits too.
main({ slowCalls: 3500 });
