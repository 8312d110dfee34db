import { main } from './base.mjs';

// A container or VM taking seconds to start, more than the budgets' start-up allowance.
await main({ startupMs: 7000 });
