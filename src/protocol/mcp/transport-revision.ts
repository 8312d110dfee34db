import { DEFAULT_REVISION, type ProtocolRevision } from './revisions.js';
import { STREAMABLE_HTTP_REVISIONS } from './streamable-http.js';

/** The tool-server transports: the spec's stdio and HTTP+SSE, and Streamable HTTP (2025-03-26 and later). */
export type McpTransportName = 'stdio' | 'sse' | 'http';

/** 2025-03-26: the first revision with Streamable HTTP. */
const FIRST_HTTP_REVISION: ProtocolRevision = STREAMABLE_HTTP_REVISIONS[0];

/**
 * The revision a run over `transport` speaks when it names none (`--protocol`): the spec's,
 * 2024-11-05, on stdio and SSE; on Streamable HTTP, 2025-03-26, the first revision that has
 * that transport (a 2024-11-05 session over a transport that revision does not know would
 * judge a client or server by rules it cannot follow).
 */
export function defaultRevisionFor(transport: McpTransportName): ProtocolRevision {
  return transport === 'http' ? FIRST_HTTP_REVISION : DEFAULT_REVISION;
}

/** Why `revision` cannot be spoken over `transport`, or undefined when it can. */
export function transportRevisionMismatch(
  transport: McpTransportName,
  revision: ProtocolRevision,
): string | undefined {
  if (transport !== 'http' || (STREAMABLE_HTTP_REVISIONS as readonly string[]).includes(revision)) {
    return undefined;
  }
  return `MCP ${revision} has no Streamable HTTP transport (it came with ${FIRST_HTTP_REVISION}; ${revision} has stdio and HTTP+SSE): name ${STREAMABLE_HTTP_REVISIONS.join(', ')} with --protocol, or leave it out to speak ${FIRST_HTTP_REVISION} over Streamable HTTP`;
}
