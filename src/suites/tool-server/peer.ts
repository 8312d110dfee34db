import {
  type ClassifiedMessage,
  classifyMessage,
  errorResponse,
  JSONRPC_ERRORS,
  type JsonRpcId,
  type JsonRpcResponse,
  successResponse,
} from '../../protocol/jsonrpc/index.js';
import { METHODS } from '../../protocol/mcp/index.js';

/** One message that crossed the wire, seen from the harness, with its absolute time. */
export interface WireItem {
  /** performance.now() when it was sent or received. */
  readonly at: number;
  readonly direction: 'sent' | 'received';
  readonly text: string;
  /** Only for received items: what the text is as JSON-RPC ('not-json' when it did not parse). */
  readonly kind?: ClassifiedMessage['kind'] | 'not-json';
}

/** A reply the harness waited for, or why none came. */
export type Awaited =
  | { readonly reply: JsonRpcResponse }
  | { readonly reply: undefined; readonly why: string };

interface Waiter {
  resolve(reply: JsonRpcResponse): void;
}

/**
 * The harness's side of one JSON-RPC session, without I/O: it records every message in
 * order, matches replies to waiters by id, keeps replies nobody waited for (a reply routed
 * to the wrong session shows up there) and answers the server's own requests (ping with an
 * empty result, anything else with Method not found) through `respond`.
 */
export class RpcPeer {
  readonly items: WireItem[] = [];
  /** Replies that arrived for an id this peer never sent or stopped waiting for. */
  readonly strayReplies: JsonRpcResponse[] = [];
  /** Every reply received, by id (the first one when an id is answered twice). */
  readonly replies = new Map<JsonRpcId, JsonRpcResponse>();
  /** Ids this peer sent requests with. */
  readonly sentIds = new Set<JsonRpcId>();
  private readonly waiters = new Map<JsonRpcId, Waiter>();

  constructor(
    readonly label: string,
    private readonly respond: (message: unknown) => void,
  ) {}

  recordSent(text: string, value?: unknown): void {
    this.items.push({ at: performance.now(), direction: 'sent', text });
    const c = value === undefined ? undefined : classifyMessage(value);
    if (c?.kind === 'request') this.sentIds.add(c.message.id);
  }

  /** A line or frame data arrived: `value` is its parse, undefined when it was not JSON. */
  receive(text: string, value: unknown, parsed: boolean): void {
    if (!parsed) {
      this.items.push({ at: performance.now(), direction: 'received', text, kind: 'not-json' });
      return;
    }
    const c = classifyMessage(value);
    this.items.push({ at: performance.now(), direction: 'received', text, kind: c.kind });
    if (c.kind === 'success' || c.kind === 'error') {
      const reply = c.message;
      if (reply.id === null) {
        this.strayReplies.push(reply);
        return;
      }
      if (!this.replies.has(reply.id)) this.replies.set(reply.id, reply);
      const waiter = this.waiters.get(reply.id);
      if (waiter !== undefined) {
        this.waiters.delete(reply.id);
        waiter.resolve(reply);
      } else if (!this.sentIds.has(reply.id)) {
        this.strayReplies.push(reply);
      }
    } else if (c.kind === 'request') {
      // A server may ping its client (spec "Tool-server SSE events": keep-alive).
      const { id, method } = c.message;
      this.respond(
        method === METHODS.ping
          ? successResponse(id, {})
          : errorResponse(
              id,
              JSONRPC_ERRORS.methodNotFound,
              `the wirecheck harness does not handle ${method}`,
            ),
      );
    }
  }

  /** Replies received with a null id (parse errors, invalid requests), in order. */
  nullIdReplies(): JsonRpcResponse[] {
    return this.strayReplies.filter((r) => r.id === null);
  }

  /** Wait up to `ms` for the reply to `id`; resolves at once when it already arrived. */
  wait(id: JsonRpcId, ms: number, gone: () => string | undefined): Promise<Awaited> {
    const already = this.replies.get(id);
    if (already !== undefined) return Promise.resolve({ reply: already });
    return new Promise((resolve) => {
      const finish = (value: Awaited) => {
        clearTimeout(timer);
        clearInterval(poll);
        this.waiters.delete(id);
        resolve(value);
      };
      const timer = setTimeout(() => finish({ reply: undefined, why: `no reply within ${ms} ms` }), ms);
      // A server that died will never answer: stop waiting early and say why.
      const poll = setInterval(() => {
        const why = gone();
        if (why !== undefined) finish({ reply: undefined, why });
      }, 50);
      this.waiters.set(id, { resolve: (reply) => finish({ reply }) });
    });
  }
}

let lastId = 0;

/**
 * A request id unique across every session of the run: a reply that lands on another
 * session's stream can then be told apart from that session's own replies.
 */
export function nextId(): number {
  lastId += 1;
  return lastId;
}
