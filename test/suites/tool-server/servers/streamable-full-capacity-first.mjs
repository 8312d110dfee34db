import { main } from './streamable-base.mjs';

// At most 2 sessions (503 past them), the cap checked before the Origin (which it validates, 403): conforming.
main({ maxSessions: 2, capacityFirst: true });
