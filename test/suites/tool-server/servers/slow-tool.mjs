import { main } from './base.mjs';

// A `slow` tool whose calls the diagnostics tool counts (in_flight_calls) and which a closed
// stream aborts, as the reference server's: conforming.
main({ slowTool: true });
