import { main } from './base.mjs';

// keep-jobs whose answers all come at the end (a buffered stdout): a restart's answer then
// arrives after the jobs it left were last seen.
await main({ keepJobs: true, bufferAnswers: true });
