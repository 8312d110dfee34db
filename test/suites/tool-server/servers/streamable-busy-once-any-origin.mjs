import { main } from './streamable-base.mjs';

// Briefly at capacity (the first POST with an Origin is answered 503, Retry-After: 1) and any Origin accepted.
main({ anyOrigin: true, busyOnce: true });
