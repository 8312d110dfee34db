import { main } from './base.mjs';

// A minute after stdin ends, far past the harness's wait for the exit: a runner kept alive
// by a timer or an open handle once every line is answered.
await main({ exitDelayMs: 60_000 });
