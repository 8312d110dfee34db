import { main } from './base.mjs';

// Asks for 2025-06-18, so the header rule binds it, and never sends MCP-Protocol-Version.
main({ protocolVersion: '2025-06-18', ignoreVersion: true, httpNoProtocolVersion: true });
