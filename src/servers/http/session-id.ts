import type { FastifyRequest } from 'fastify';
import { SESSION_HEADER, SESSION_QUERY_PARAM } from '../../protocol/mcp/index.js';

/**
 * The session of an SSE + POST message: the query's `sessionId`, or else the `Mcp-Session-Id`
 * header (the spec carries it in either). `messagePath` is named in the problem when there is none.
 */
export function sessionIdOfRequest(
  request: FastifyRequest,
  messagePath: string,
): string | { problem: string } {
  const query = request.query as Record<string, string | string[] | undefined>;
  const fromQuery = query[SESSION_QUERY_PARAM];
  const fromHeader = request.headers[SESSION_HEADER];
  const id = fromQuery ?? fromHeader;
  if (Array.isArray(id)) return { problem: `more than one session id was given (${id.join(', ')})` };
  if (id === undefined || id === '') {
    return {
      problem: `no session id: POST to the path of the endpoint event (${messagePath}?${SESSION_QUERY_PARAM}=<id>) or send header Mcp-Session-Id`,
    };
  }
  return id;
}
