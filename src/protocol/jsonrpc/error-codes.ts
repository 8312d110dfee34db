import type { JsonRpcErrorResponse, JsonRpcId, JsonRpcRequest, JsonRpcSuccess } from './envelope.js';

/**
 * JSON-RPC 2.0 error codes. The spec leaves the tool server's codes "not shown"; these are
 * the ones JSON-RPC 2.0 defines and MCP 2024-11-05 uses.
 */
export const JSONRPC_ERRORS = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
} as const;
export type JsonRpcErrorName = keyof typeof JSONRPC_ERRORS;

/** The standard message of each code, as JSON-RPC 2.0 words it. */
export const JSONRPC_ERROR_MESSAGES: Record<JsonRpcErrorName, string> = {
  parseError: 'Parse error',
  invalidRequest: 'Invalid Request',
  methodNotFound: 'Method not found',
  invalidParams: 'Invalid params',
  internalError: 'Internal error',
};

export function errorResponse(
  id: JsonRpcId | null,
  code: number,
  message: string,
  data?: unknown,
): JsonRpcErrorResponse {
  const error = data === undefined ? { code, message } : { code, message, data };
  return { jsonrpc: '2.0', id, error };
}

export function successResponse(id: JsonRpcId, result: Record<string, unknown>): JsonRpcSuccess {
  return { jsonrpc: '2.0', id, result };
}

export function request(id: JsonRpcId, method: string, params?: Record<string, unknown>): JsonRpcRequest {
  return params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
}
