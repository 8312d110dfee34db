import { main } from './streamable-base.mjs';

// A 2025-06-18 server that requires MCP-Protocol-Version on every request after initialize, DELETE
// included, and holds at most 3 sessions at once.
main({ only0618: true, versionHeaderRequired: true, maxSessions: 3 });
