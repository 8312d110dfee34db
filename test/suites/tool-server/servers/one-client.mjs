import { main } from './base.mjs';

// Over SSE, serves the POSTs of the oldest open session only; another session's get 409.
main({ oneClient: true });
