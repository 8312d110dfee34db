import { main } from './base.mjs';

// A `slow` tool whose calls the diagnostics tool counts (in_flight_calls), which a closed stream
// does not abort: the call runs on after its session closed (the flaw).
main({ slowTool: true, keepSlowCalls: true });
