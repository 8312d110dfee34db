import { main } from './base.mjs';

// A rootless container: commands are root inside a user namespace, an unprivileged user outside it.
await main({ rootInUserNamespace: true });
