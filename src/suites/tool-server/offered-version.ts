import { ASSUMED_REVISION_WITHOUT_HEADER, PROTOCOL_VERSION } from '../../protocol/mcp/index.js';

/**
 * The one place that decides which protocol version the suite offers in `initialize`: the
 * configured one when the run names one (`--protocol`), else 2024-11-05 (the spec's) on stdio
 * and SSE, and 2025-03-26 on Streamable HTTP, the first revision that has that transport (a
 * 2024-11-05 offer over a transport that revision does not know would test nothing real).
 */
export function offeredProtocolVersion(transport: 'stdio' | 'sse' | 'http', configured?: string): string {
  if (configured !== undefined) return configured;
  return transport === 'http' ? ASSUMED_REVISION_WITHOUT_HEADER : PROTOCOL_VERSION;
}
