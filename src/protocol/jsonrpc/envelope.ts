import { z } from 'zod';

/**
 * JSON-RPC 2.0 envelopes. The spec's table says a request id is an integer; JSON-RPC 2.0 and
 * MCP 2024-11-05 also allow a string, so the schemas accept both and checks that care about
 * the spec's narrower rule look at the id themselves.
 */
export const JsonRpcId = z.union([z.number(), z.string()]);
export type JsonRpcId = z.infer<typeof JsonRpcId>;

const version = z.literal('2.0');

export const JsonRpcRequest = z.looseObject({
  jsonrpc: version,
  id: JsonRpcId,
  method: z.string(),
  params: z.record(z.string(), z.unknown()).optional(),
});
export type JsonRpcRequest = z.infer<typeof JsonRpcRequest>;

/** A request without an id: no reply is ever sent for it. */
export const JsonRpcNotification = z.looseObject({
  jsonrpc: version,
  method: z.string(),
  params: z.record(z.string(), z.unknown()).optional(),
});
export type JsonRpcNotification = z.infer<typeof JsonRpcNotification>;

export const JsonRpcSuccess = z.looseObject({
  jsonrpc: version,
  id: JsonRpcId,
  result: z.record(z.string(), z.unknown()),
});
export type JsonRpcSuccess = z.infer<typeof JsonRpcSuccess>;

export const JsonRpcErrorObject = z.looseObject({
  code: z.number().int(),
  message: z.string(),
  data: z.unknown().optional(),
});
export type JsonRpcErrorObject = z.infer<typeof JsonRpcErrorObject>;

/** An error reply; `id` is null when the request's id could not be read (parse error, invalid request). */
export const JsonRpcErrorResponse = z.looseObject({
  jsonrpc: version,
  id: JsonRpcId.nullable(),
  error: JsonRpcErrorObject,
});
export type JsonRpcErrorResponse = z.infer<typeof JsonRpcErrorResponse>;

export type JsonRpcResponse = JsonRpcSuccess | JsonRpcErrorResponse;
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

/** What one parsed JSON value is, as a JSON-RPC message. */
export type ClassifiedMessage =
  | { readonly kind: 'request'; readonly message: JsonRpcRequest }
  | { readonly kind: 'notification'; readonly message: JsonRpcNotification }
  | { readonly kind: 'success'; readonly message: JsonRpcSuccess }
  | { readonly kind: 'error'; readonly message: JsonRpcErrorResponse }
  | { readonly kind: 'batch'; readonly items: readonly unknown[] }
  | { readonly kind: 'invalid'; readonly reason: string; readonly id: JsonRpcId | null };

/**
 * Classify a parsed JSON value. Pure; never throws. `invalid` carries the id when one could
 * be read, so an Invalid Request error can echo it as JSON-RPC 2.0 asks.
 */
export function classifyMessage(value: unknown): ClassifiedMessage {
  if (Array.isArray(value)) return { kind: 'batch', items: value };
  if (typeof value !== 'object' || value === null) {
    return { kind: 'invalid', reason: `expected a JSON object, got ${describeJson(value)}`, id: null };
  }
  const v = value as Record<string, unknown>;
  const id = JsonRpcId.safeParse(v.id).success ? (v.id as JsonRpcId) : null;
  if (v.jsonrpc !== '2.0') {
    return { kind: 'invalid', reason: `expected "jsonrpc": "2.0", got ${describeJson(v.jsonrpc)}`, id };
  }
  if ('method' in v) {
    if ('id' in v) {
      const r = JsonRpcRequest.safeParse(v);
      return r.success
        ? { kind: 'request', message: r.data }
        : { kind: 'invalid', reason: firstIssue(r.error), id };
    }
    const n = JsonRpcNotification.safeParse(v);
    return n.success
      ? { kind: 'notification', message: n.data }
      : { kind: 'invalid', reason: firstIssue(n.error), id: null };
  }
  if ('result' in v) {
    const r = JsonRpcSuccess.safeParse(v);
    return r.success
      ? { kind: 'success', message: r.data }
      : { kind: 'invalid', reason: firstIssue(r.error), id };
  }
  if ('error' in v) {
    const r = JsonRpcErrorResponse.safeParse(v);
    return r.success
      ? { kind: 'error', message: r.data }
      : { kind: 'invalid', reason: firstIssue(r.error), id };
  }
  return { kind: 'invalid', reason: 'expected one of "method", "result" or "error"', id };
}

/** Short description of a JSON value for error messages. */
export function describeJson(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  const s = JSON.stringify(value);
  return s.length > 40 ? `${typeof value} ${s.slice(0, 40)}...` : `${typeof value} ${s}`;
}

function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (issue === undefined) return 'invalid message';
  const where = issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
  return `${where}${issue.message}`;
}
