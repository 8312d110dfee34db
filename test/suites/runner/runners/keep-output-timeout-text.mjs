import { main } from './base.mjs';

// keep-output whose timed-out answer is the timeout text alone: the hoarded flood shows only
// in the runner's memory.
await main({ keepOutput: true, timeoutDropsOutput: true });
