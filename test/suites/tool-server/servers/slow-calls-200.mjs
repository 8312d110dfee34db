import { main } from './base.mjs';

// Every tool call takes 200 ms: answered within any reply budget, but few fit in a short limit.
main({ slowCalls: 200 });
