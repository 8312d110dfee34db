import { main } from './base.mjs';

// Not a flaw MCP names: over HTTP it sends tools/call while its notifications/initialized POST
// is still being sent (that body trickles in, so the call's POST ends first).
await main({ overlapInitialized: true });
