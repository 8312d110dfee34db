import { main } from './base.mjs';

// Every tool call is answered 3 to 6 s late (the delays taken in turn from the list), while
// the server answers everything else (a ping) at once and keeps serving: slow tools, correct.
main({ slowAsyncCalls: [3000, 4500, 6000, 3500, 5000, 5500, 4000] });
