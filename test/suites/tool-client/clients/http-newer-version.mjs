import { main } from './base.mjs';

// Asks for 2025-06-18 and sends MCP-Protocol-Version (conforming over Streamable HTTP).
main({ protocolVersion: '2025-06-18', ignoreVersion: true });
