import { defaultRevisionFor } from '../../protocol/mcp/index.js';

/**
 * The one place that decides which protocol version the suite offers in `initialize`: the
 * configured one when the run names one (`--protocol`), else the transport's default
 * (defaultRevisionFor: 2024-11-05, the spec's, on stdio and SSE; 2025-03-26 on Streamable HTTP).
 */
export function offeredProtocolVersion(transport: 'stdio' | 'sse' | 'http', configured?: string): string {
  return configured ?? defaultRevisionFor(transport);
}
