import { main } from './base.mjs';

// Not a flaw: over stdio, the tools are listed in a server process of their own, before the call's.
await main({ listInOwnSession: true });
