import { JSONRPC_ERRORS } from '../protocol/jsonrpc/index.js';
import { METHODS, PROTOCOL_VERSION } from '../protocol/mcp/index.js';

/** The raw baselines' answer: no validation, just enough of MCP for the bench's driver. */
function echoResult(method: unknown, params: unknown): Record<string, unknown> | undefined {
  switch (method) {
    case METHODS.initialize:
      return {
        protocolVersion: PROTOCOL_VERSION,
        capabilities: { tools: {} },
        serverInfo: { name: 'raw-echo', version: '0' },
      };
    case METHODS.toolsCall: {
      const text = (params as { arguments?: { text?: unknown } } | undefined)?.arguments?.text;
      return { content: [{ type: 'text', text: String(text ?? '') }] };
    }
    case METHODS.ping:
      return {};
    default:
      return undefined;
  }
}

/** The JSON text of the reply to one parsed message, undefined for a notification. */
export function echoReply(message: unknown): string | undefined {
  const m = message as { id?: unknown; method?: unknown; params?: unknown } | null;
  if (typeof m !== 'object' || m === null || m.id === undefined) return undefined;
  const result = echoResult(m.method, m.params);
  return JSON.stringify(
    result === undefined
      ? {
          jsonrpc: '2.0',
          id: m.id,
          error: { code: JSONRPC_ERRORS.methodNotFound, message: 'Method not found' },
        }
      : { jsonrpc: '2.0', id: m.id, result },
  );
}
