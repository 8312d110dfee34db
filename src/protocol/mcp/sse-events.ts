/** Event names of the tool server's SSE stream (spec "Tool-server SSE events"). */
export const TOOL_SSE_EVENTS = { endpoint: 'endpoint', message: 'message' } as const;

/** The query parameter and the header that carry a session id (spec "Tool-server objects"). */
export const SESSION_QUERY_PARAM = 'sessionId';
export const SESSION_HEADER = 'mcp-session-id';

/** Keep-alive interval of an SSE tool server (spec "Limits"). */
export const KEEP_ALIVE_MS = 15_000;

/** Health probe budget: 5 s in all, 3 s of stream capture (spec "Limits"). */
export const PROBE_BUDGET_MS = 5_000;
export const PROBE_CAPTURE_MS = 3_000;

/**
 * Resolve the `endpoint` event's data against the stream URL: an absolute URL is used as
 * is, a path is prefixed with the server's origin (spec "Tool server, SSE transport").
 */
export function resolveEndpoint(data: string, streamUrl: string): URL {
  const trimmed = data.trim();
  if (/^[a-z][a-z0-9+.-]*:/i.test(trimmed)) return new URL(trimmed);
  return new URL(trimmed, new URL(streamUrl).origin);
}

/** The session id of an endpoint URL, from its `sessionId` query parameter. */
export function sessionIdOf(endpoint: URL): string | undefined {
  return endpoint.searchParams.get(SESSION_QUERY_PARAM) ?? undefined;
}
