import { main } from './base.mjs';

// Everything here is allowed: a client that differs from the conforming one only in these
// ways must pass every check the conforming one passes.
await main({ sortArgumentKeys: true, batchNotifications: true, pingMeta: true, probeSse: true });
