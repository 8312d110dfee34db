import { main } from './base.mjs';

// Slow tools (every call of a listed tool answered late, a ping at once; the delays taken in
// turn: the diagnostics tool answers in 2-3 s at first, then in 6 s) with a `slow` tool whose
// calls the diagnostics tool counts (in_flight_calls) and which a closed stream aborts, as the
// reference server's: slow, and correct.
main({ slowAsyncCalls: [2000, 3000, 3000, 6000, 6000, 6000, 6000, 6000], slowTool: true });
