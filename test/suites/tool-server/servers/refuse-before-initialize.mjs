import { main } from './base.mjs';

// Over SSE: a POST of a request before initialize is refused with HTTP 400.
main({ refuseBeforeInitialize: true });
