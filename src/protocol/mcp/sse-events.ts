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

/**
 * The query parameter that carries an endpoint URL's session: `sessionId`, the spec's name,
 * or else one spelled so in another case or style (`session_id`: the Python SDK's and
 * FastMCP's). A client uses the announced URL as is, so a server reads its session from the
 * parameter it named; only sse.endpoint-first judges the name.
 */
export function sessionParamOf(endpoint: URL): string | undefined {
  if (endpoint.searchParams.has(SESSION_QUERY_PARAM)) return SESSION_QUERY_PARAM;
  for (const name of endpoint.searchParams.keys()) {
    if (name.replace(/[-_]/g, '').toLowerCase() === 'sessionid') return name;
  }
  return undefined;
}

/** The session id of an endpoint URL, from the query parameter that carries it (sessionParamOf). */
export function sessionIdOf(endpoint: URL): string | undefined {
  const name = sessionParamOf(endpoint);
  return name === undefined ? undefined : (endpoint.searchParams.get(name) ?? undefined);
}
