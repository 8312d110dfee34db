import type { z } from 'zod';
import {
  type ClassifiedMessage,
  classifyMessage,
  errorResponse,
  JSONRPC_ERROR_MESSAGES,
  JSONRPC_ERRORS,
  type JsonRpcNotification,
  request,
  successResponse,
} from '../../protocol/jsonrpc/index.js';
import {
  CallToolResult,
  type Implementation,
  InitializeResult,
  isProtocolRevision,
  METHODS,
  PROTOCOL_REVISIONS,
  PROTOCOL_VERSION,
  PROTOCOL_VERSION_HEADER_SINCE,
  type ProtocolRevision,
  revisionAtLeast,
  ToolsListResult,
} from '../../protocol/mcp/index.js';
import {
  isSessionExpired,
  type Transport,
  TransportClosedError,
  TransportError,
} from '../../transports/index.js';
import { VERSION } from '../../version.js';
import { ToolAbortError, ToolProtocolError, ToolServerError, ToolTimeoutError } from './errors.js';

/** Per-request timeout when none is given: long enough for a slow tool, short enough for CI. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/** `work`, or the error `late` makes once `ms` passed; `work` settling later is handled. */
function withinMs<T>(work: Promise<T>, ms: number, late: () => Error): Promise<T> {
  work.catch(() => {});
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(late()), ms);
  });
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}

export interface ToolClientOptions {
  /** Default per-request timeout (ms). */
  readonly timeoutMs?: number;
  /** Sent in `initialize`; default `{name: 'wirecheck', version: VERSION}`. */
  readonly clientInfo?: Implementation;
  /**
   * The MCP revision asked for in `initialize` (default the spec's 2024-11-05). The client
   * speaks every revision of PROTOCOL_REVISIONS and goes on with any of them the server answers.
   */
  readonly protocolVersion?: ProtocolRevision;
  /** Sent in `initialize`; default `{}` (the client offers no optional capability). */
  readonly capabilities?: Record<string, unknown>;
  /** Every notification from the server (none is required to be understood). */
  readonly onNotification?: (notification: JsonRpcNotification) => void;
  /** Problems that fail no request: a non-JSON frame, a reply nobody waits for, a malformed message. */
  readonly onWarning?: (warning: string) => void;
}

export interface ToolRequestOptions {
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

interface Pending {
  readonly method: string;
  resolve(result: Record<string, unknown>): void;
  reject(error: Error): void;
}

/**
 * The reference tool client (MCP 2024-11-05 over any Transport). `connect()` sends
 * `initialize` (protocolVersion 2024-11-05, capabilities, clientInfo) and, once answered,
 * the `notifications/initialized` notification, before any other request. Requests get
 * unique increasing integer ids (the spec's JSON-RPC request table: "id: integer"), each
 * registered before it is sent, since over SSE the reply may arrive before the POST's 202.
 *
 * The server's own requests are answered: `ping` with an empty result (MCP: either side
 * may ping), any other method with -32601. Notifications are passed to `onNotification`
 * and otherwise ignored, whatever their method, as are replies to ids nobody waits for.
 *
 * Failures are typed: a JSON-RPC error reply is a ToolServerError (code, message, data);
 * a result of the wrong shape a ToolProtocolError saying what was expected and what
 * arrived; a dead transport the TransportError it reported; no reply in time a
 * ToolTimeoutError (the request is then cancelled with `notifications/cancelled`); the
 * caller's signal a ToolAbortError.
 */
export class ToolClient {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private state: 'new' | 'connecting' | 'ready' | 'closed' = 'new';
  /** Why the transport ended, when it said so. */
  private fatal: TransportError | undefined;
  private initialized: InitializeResult | undefined;

  constructor(
    readonly transport: Transport,
    private readonly options: ToolClientOptions = {},
  ) {
    transport.onmessage = (m) => this.receive(m);
    transport.onerror = (e) => {
      if (e.fatal) this.fatal ??= e;
      else this.warn(e.message);
    };
    transport.onclose = () => this.closed();
  }

  /** The server's `initialize` result, once connected. */
  get server(): InitializeResult | undefined {
    return this.initialized;
  }

  /** Start the transport and run the initialization handshake. */
  async connect(options: ToolRequestOptions = {}): Promise<InitializeResult> {
    if (this.state !== 'new') throw new Error(`ToolClient.connect(): the client is already ${this.state}`);
    this.state = 'connecting';
    const timeoutMs = options.timeoutMs ?? this.options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    try {
      await withinMs(this.transport.start(), timeoutMs, () => {
        void this.transport.close();
        return new TransportError(
          'connection',
          `connecting: the transport did not start within ${timeoutMs} ms (a server that accepts the connection and never answers, say)`,
          true,
        );
      });
    } catch (e) {
      this.state = 'closed';
      throw e;
    }
    const result = await this.handshake(options);
    this.state = 'ready';
    return result;
  }

  /** initialize, then notifications/initialized; the transport learns the version. */
  private async handshake(options: ToolRequestOptions): Promise<InitializeResult> {
    const result = await this.send(
      METHODS.initialize,
      {
        protocolVersion: this.options.protocolVersion ?? PROTOCOL_VERSION,
        capabilities: this.options.capabilities ?? {},
        clientInfo: this.options.clientInfo ?? { name: 'wirecheck', version: VERSION },
      },
      InitializeResult,
      options,
    );
    if (!isProtocolRevision(result.protocolVersion)) {
      // MCP lifecycle (every revision): a client that does not support the server's version should disconnect.
      throw new ToolProtocolError(
        METHODS.initialize,
        `the server answered protocolVersion ${JSON.stringify(result.protocolVersion)}, which this client does not speak`,
        `a protocolVersion among ${PROTOCOL_REVISIONS.join(', ')}`,
        result.protocolVersion,
      );
    }
    // The MCP-Protocol-Version header exists from 2025-06-18 on: a session of an earlier revision sends none.
    if (revisionAtLeast(result.protocolVersion, PROTOCOL_VERSION_HEADER_SINCE))
      this.transport.setProtocolVersion?.(result.protocolVersion);
    await this.notify(METHODS.initialized);
    this.initialized = result;
    return result;
  }

  listTools(options: ToolRequestOptions = {}): Promise<ToolsListResult> {
    this.assertReady(METHODS.toolsList);
    return this.request(METHODS.toolsList, undefined, ToolsListResult, options);
  }

  /** Call a tool; absent arguments are sent as absent (the spec: they count as empty). */
  callTool(
    name: string,
    args?: Record<string, unknown>,
    options: ToolRequestOptions = {},
  ): Promise<CallToolResult> {
    this.assertReady(METHODS.toolsCall);
    const params = args === undefined ? { name } : { name, arguments: args };
    return this.request(METHODS.toolsCall, params, CallToolResult, options);
  }

  async ping(options: ToolRequestOptions = {}): Promise<void> {
    this.assertReady(METHODS.ping);
    await this.request(METHODS.ping, undefined, undefined, options);
  }

  /** Close the transport (for stdio: end the server process). Pending requests fail. */
  async close(): Promise<void> {
    await this.transport.close();
    this.closed();
  }

  /**
   * Send a request and validate its result with `schema` (any object when none). When the
   * transport says the server ended the session (Streamable HTTP: 404 to a request carrying
   * the session id), a new session is initialized and the request sent once more (MUST).
   */
  async request<S extends z.ZodType<Record<string, unknown>>>(
    method: string,
    params: Record<string, unknown> | undefined,
    schema: S | undefined,
    options: ToolRequestOptions = {},
  ): Promise<z.infer<S>> {
    try {
      return await this.send(method, params, schema, options);
    } catch (e) {
      if (!isSessionExpired(e) || method === METHODS.initialize || this.state !== 'ready') throw e;
      this.warn(`${e.message}; initializing a new session`);
      this.state = 'connecting';
      await this.handshake(options);
      this.state = 'ready';
      return this.send(method, params, schema, options);
    }
  }

  private async send<S extends z.ZodType<Record<string, unknown>>>(
    method: string,
    params: Record<string, unknown> | undefined,
    schema: S | undefined,
    options: ToolRequestOptions,
  ): Promise<z.infer<S>> {
    if (this.state === 'closed') throw this.closedError(method);
    const id = this.nextId++;
    const timeoutMs = options.timeoutMs ?? this.options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    const signal = options.signal;
    if (signal?.aborted) throw new ToolAbortError(method, signal.reason);
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const reply = new Promise<Record<string, unknown>>((resolve, reject) => {
      this.pending.set(id, { method, resolve, reject });
      timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new ToolTimeoutError(method, id, timeoutMs));
        this.cancel(method, id, `no reply within ${timeoutMs} ms`);
      }, timeoutMs);
      onAbort = () => {
        this.pending.delete(id);
        reject(new ToolAbortError(method, signal?.reason));
        this.cancel(method, id, 'aborted by the client');
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    // It may settle while `send` is still running; it is awaited (and so handled) below.
    reply.catch(() => {});
    try {
      const sending = this.transport.send(request(id, method, params)).catch((e: unknown) => {
        this.pending.delete(id);
        throw this.sendError(method, e);
      });
      // The reply's timer also bounds the send: a server that takes the POST and never answers
      // it, or trickles its body, does not hold the request past its timeout.
      sending.catch(() => {});
      await Promise.race([sending, reply]);
      const result = await reply;
      if (schema === undefined) return result as z.infer<S>;
      const parsed = schema.safeParse(result);
      if (parsed.success) return parsed.data as z.infer<S>;
      const issue = parsed.error.issues[0];
      const where = issue === undefined || issue.path.length === 0 ? '' : ` at ${issue.path.join('.')}`;
      throw new ToolProtocolError(
        method,
        `the result (id ${id}) does not have the ${method} result shape${where}: ${issue?.message ?? 'invalid'}`,
        `a ${method} result`,
        result,
      );
    } finally {
      clearTimeout(timer);
      if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Send a notification (no reply). */
  async notify(method: string, params?: Record<string, unknown>): Promise<void> {
    const message = params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
    const timeoutMs = this.options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    try {
      await withinMs(
        this.transport.send(message),
        timeoutMs,
        () =>
          new TransportError(
            'connection',
            `${method}: the notification was not sent within ${timeoutMs} ms`,
            false,
          ),
      );
    } catch (e) {
      throw this.sendError(method, e);
    }
  }

  private receive(value: unknown): void {
    const message = classifyMessage(value);
    switch (message.kind) {
      case 'success':
        this.settle(message, (p) => p.resolve(message.message.result));
        return;
      case 'error':
        this.settle(message, (p) => p.reject(new ToolServerError(p.method, message.message.error)));
        return;
      case 'request':
        void this.answer(message.message.id, message.message.method);
        return;
      case 'notification':
        this.options.onNotification?.(message.message);
        return;
      case 'batch':
        for (const item of message.items) this.receive(item);
        return;
      case 'invalid': {
        const waiting = typeof message.id === 'number' ? this.pending.get(message.id) : undefined;
        if (waiting === undefined || message.id === null) {
          this.warn(`ignored a message that is not JSON-RPC 2.0 (${message.reason}): ${preview(value)}`);
          return;
        }
        this.pending.delete(message.id as number);
        waiting.reject(
          new ToolProtocolError(
            waiting.method,
            `the reply (id ${message.id}) is not a JSON-RPC 2.0 response: ${message.reason}`,
            'a JSON-RPC 2.0 response with "result" or "error"',
            value,
          ),
        );
        return;
      }
      default:
        checkNever(message);
    }
  }

  private settle(
    message: Extract<ClassifiedMessage, { kind: 'success' | 'error' }>,
    then: (p: Pending) => void,
  ): void {
    const id = message.message.id;
    const waiting = typeof id === 'number' ? this.pending.get(id) : undefined;
    if (waiting === undefined) {
      this.warn(`ignored a reply to id ${JSON.stringify(id)}, which no request is waiting for`);
      return;
    }
    this.pending.delete(id as number);
    then(waiting);
  }

  private async answer(id: string | number, method: string): Promise<void> {
    const reply =
      method === METHODS.ping
        ? successResponse(id, {})
        : errorResponse(
            id,
            JSONRPC_ERRORS.methodNotFound,
            `${JSONRPC_ERROR_MESSAGES.methodNotFound}: ${method}`,
          );
    try {
      await this.transport.send(reply);
    } catch (e) {
      this.warn(`could not answer the server's ${method} request (id ${id}): ${(e as Error).message}`);
    }
  }

  private cancel(method: string, id: number, reason: string): void {
    // MCP: the initialize request must not be cancelled.
    if (method === METHODS.initialize || this.state === 'closed') return;
    this.notify(METHODS.cancelled, { requestId: id, reason }).catch(() => {});
  }

  private closed(): void {
    if (this.state === 'closed' && this.pending.size === 0) return;
    this.state = 'closed';
    const waiting = [...this.pending.values()];
    this.pending.clear();
    for (const p of waiting) p.reject(this.closedError(p.method));
  }

  private closedError(method: string): TransportError {
    if (this.fatal !== undefined) return this.fatal;
    return new TransportError('connection', `${method}: the connection closed before a reply arrived`, true);
  }

  private sendError(method: string, e: unknown): Error {
    if (e instanceof TransportClosedError) return this.closedError(method);
    if (e instanceof TransportError) return e;
    return new TransportError('connection', `${method}: sending failed: ${(e as Error).message}`, true);
  }

  private assertReady(method: string): void {
    if (this.state === 'new' || this.state === 'connecting') {
      throw new Error(
        `ToolClient: ${method} before connect() finished (the initialize handshake comes first)`,
      );
    }
  }

  private warn(text: string): void {
    this.options.onWarning?.(text);
  }
}

function preview(value: unknown): string {
  const s = JSON.stringify(value) ?? String(value);
  return s.length > 200 ? `${s.slice(0, 200)}...` : s;
}

function checkNever(x: never): never {
  throw new Error(`unhandled message kind ${JSON.stringify(x)}`);
}
