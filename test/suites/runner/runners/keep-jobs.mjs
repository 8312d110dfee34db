import { main } from './base.mjs';

await main({ keepJobs: true });
