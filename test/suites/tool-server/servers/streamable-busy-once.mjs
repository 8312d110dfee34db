import { main } from './streamable-base.mjs';

// Briefly at capacity (the first POST with an Origin is answered 503, Retry-After: 1), Origin validated (403): conforming.
main({ busyOnce: true });
