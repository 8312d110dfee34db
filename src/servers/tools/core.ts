import { randomUUID } from 'node:crypto';
import {
  classifyMessage,
  describeJson,
  errorResponse,
  JSONRPC_ERRORS,
  type JsonRpcErrorResponse,
  type JsonRpcId,
  type JsonRpcResponse,
  successResponse,
} from '../../protocol/jsonrpc/index.js';
import {
  type CallToolResult,
  DEFAULT_REVISION,
  type Implementation,
  InitializeParams,
  isBefore,
  METHODS,
  negotiatedVersion,
  PROTOCOL_REVISIONS,
  PROTOCOL_VERSION,
  type ProtocolRevision,
  type Tool,
  textResult,
} from '../../protocol/mcp/index.js';
import { VERSION } from '../../version.js';
import { type ArgumentChecker, compileArgumentChecker } from './arguments.js';
import { ToolCall } from './call.js';
import type { McpToolDefinition, ToolServerStats, ToolTransportName } from './tool.js';
import { toolOf } from './tool.js';

/** What one incoming message is answered with: one response, a batch's array, or nothing. */
export type JsonRpcReply = JsonRpcResponse | JsonRpcResponse[];
/** Synchronous where the answer is (initialize, ping, tools/list, sync tools), a promise otherwise. */
export type HandleOutcome = JsonRpcReply | undefined | Promise<JsonRpcReply | undefined>;

export const REFERENCE_SERVER_NAME = 'wirecheck-reference-tools';

export interface ToolServerCoreOptions {
  readonly tools: readonly McpToolDefinition[];
  readonly serverInfo?: Implementation;
  /** One line per event worth a log (stderr in the CLI); never protocol output. */
  readonly log?: (line: string) => void;
  /**
   * The protocol revisions the server speaks, oldest first; the last is answered to a client asking
   * for one not listed (MCP version negotiation). Default: all four.
   */
  readonly protocolVersions?: readonly ProtocolRevision[];
}

export interface OpenSessionOptions {
  readonly id?: string;
  readonly transport: ToolTransportName;
}

export interface ToolServerSession {
  readonly id: string;
  readonly transport: ToolTransportName;
  readonly closed: boolean;
  /** An `initialize` request was answered. */
  readonly initialized: boolean;
  inFlightCount(): number;
  /** Answer one parsed JSON value (a message or a batch). Never throws. */
  handle(value: unknown): HandleOutcome;
  /** Abort every in-flight call (their replies are dropped) and forget the session. Idempotent. */
  close(reason?: string): void;
}

export interface ToolServerCore extends ToolServerStats {
  readonly tools: readonly Tool[];
  openSession(options: OpenSessionOptions): ToolServerSession;
  /** Close every session (server shutdown). */
  closeAll(reason?: string): void;
}

/** The reply to input that is not JSON: -32700 with a null id (JSON-RPC 2.0). */
export function parseErrorResponse(detail: string): JsonRpcErrorResponse {
  return errorResponse(null, JSONRPC_ERRORS.parseError, `Parse error: ${detail}`);
}

interface RegisteredTool {
  readonly definition: McpToolDefinition;
  readonly check: ArgumentChecker;
}

/**
 * A request other than ping before initialize (MCP 2024-11-05 defines no code for it; -32002
 * is in JSON-RPC's range for server errors, the code LSP gives "server not initialized").
 */
const NOT_INITIALIZED = -32002;

const EMPTY_RESULT: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;

/**
 * The transport-free heart of the reference tool server: MCP 2024-11-05 over JSON-RPC 2.0.
 * Transports feed it parsed values and write out what it returns. The spec leaves method
 * names and error codes "not shown"; these are MCP 2024-11-05's and JSON-RPC 2.0's.
 */
export function createToolServerCore(options: ToolServerCoreOptions): ToolServerCore {
  const byName = new Map<string, RegisteredTool>();
  for (const definition of options.tools) {
    if (byName.has(definition.name))
      throw new TypeError(`two tools are named ${JSON.stringify(definition.name)}`);
    byName.set(definition.name, { definition, check: compileArgumentChecker(definition.inputSchema) });
  }
  const tools = options.tools.map(toolOf);
  const toolNames = tools.map((t) => t.name);
  const listResult: Record<string, unknown> = { tools };
  const serverInfo = options.serverInfo ?? { name: REFERENCE_SERVER_NAME, version: VERSION };
  // MCP version negotiation (every revision): the version asked when the server speaks it, else
  // its latest. By default the server speaks all four revisions.
  const versions = options.protocolVersions ?? PROTOCOL_REVISIONS;
  const initializeResult: Record<string, unknown> = {
    // Replaced per initialize by the negotiated version (Session.initialize).
    protocolVersion: PROTOCOL_VERSION,
    capabilities: { tools: {} },
    serverInfo,
  };
  const log = options.log ?? (() => {});
  const sessions = new Set<Session>();
  const counters = { inFlight: 0 };

  const core: ToolServerCore = {
    tools,
    serverInfo,
    sessionCount: () => sessions.size,
    inFlightCount: () => counters.inFlight,
    toolNames: () => toolNames,
    openSession(open) {
      const session = new Session(open.id ?? randomUUID(), open.transport, shared);
      sessions.add(session);
      return session;
    },
    closeAll(reason = 'the server is shutting down') {
      for (const s of [...sessions]) s.close(reason);
    },
  };
  const shared: Shared = {
    byName,
    listResult,
    initializeResult,
    versions,
    log,
    sessions,
    counters,
    stats: core,
  };
  return core;
}

interface Shared {
  readonly byName: ReadonlyMap<string, RegisteredTool>;
  readonly listResult: Record<string, unknown>;
  readonly initializeResult: Record<string, unknown>;
  readonly versions: readonly ProtocolRevision[];
  readonly log: (line: string) => void;
  readonly sessions: Set<Session>;
  readonly counters: { inFlight: number };
  readonly stats: ToolServerStats;
}

type Single = JsonRpcResponse | undefined | Promise<JsonRpcResponse | undefined>;

class Session implements ToolServerSession {
  closed = false;
  initialized = false;
  /** The revision negotiated by initialize: it decides how invalid arguments are answered. */
  private revision: ProtocolRevision = DEFAULT_REVISION;
  private warnedBeforeInitialize = false;
  private readonly inFlight = new Map<JsonRpcId, ToolCall>();
  private readonly info: { id: string; transport: ToolTransportName };

  constructor(
    readonly id: string,
    readonly transport: ToolTransportName,
    private readonly shared: Shared,
  ) {
    this.info = { id, transport };
  }

  inFlightCount(): number {
    return this.inFlight.size;
  }

  handle(value: unknown): HandleOutcome {
    if (this.closed) return undefined;
    if (Array.isArray(value)) return this.batch(value);
    return this.single(value);
  }

  close(reason = 'the session closed'): void {
    if (this.closed) return;
    this.closed = true;
    for (const [id, call] of this.inFlight) this.cancel(id, call, reason);
    this.shared.sessions.delete(this);
  }

  /**
   * JSON-RPC 2.0 batches: every item is answered as if alone, the replies come back as one
   * array (notifications and cancelled calls leave no entry; no entry at all, no reply),
   * and an empty batch is one Invalid Request.
   */
  private batch(items: readonly unknown[]): HandleOutcome {
    if (items.length === 0) return invalidRequest(null, 'an empty batch');
    const outs = items.map((item) =>
      Array.isArray(item) ? invalidRequest(null, 'a batch inside a batch') : this.single(item),
    );
    if (outs.some((o) => o instanceof Promise)) return Promise.all(outs).then(collect);
    return collect(outs as (JsonRpcResponse | undefined)[]);
  }

  private single(value: unknown): Single {
    // Fast path: a well-formed request or notification needs no schema parse.
    if (typeof value === 'object' && value !== null) {
      const v = value as Record<string, unknown>;
      if (v.jsonrpc === '2.0' && typeof v.method === 'string' && isParams(v.params)) {
        const id = v.id;
        // A number literal too big for a double parses as Infinity, which is no JSON-RPC id:
        // those go through classifyMessage and get -32600 with id null.
        if ((typeof id === 'number' && Number.isFinite(id)) || typeof id === 'string') {
          return this.request(id, v.method, v.params);
        }
        if (!('id' in v)) {
          this.notification(v.method, v.params);
          return undefined;
        }
      }
    }
    const c = classifyMessage(value);
    switch (c.kind) {
      case 'request':
        return this.request(c.message.id, c.message.method, c.message.params);
      case 'notification':
        this.notification(c.message.method, c.message.params);
        return undefined;
      case 'success':
      case 'error':
        // A reply to a request this server never sends: nothing to answer (JSON-RPC 2.0).
        return undefined;
      case 'batch':
        return invalidRequest(null, 'a batch inside a batch');
      case 'invalid':
        return invalidRequest(c.id, c.reason);
    }
  }

  private request(id: JsonRpcId, method: string, params: Record<string, unknown> | undefined): Single {
    if (!this.initialized && method !== METHODS.initialize && method !== METHODS.ping) {
      this.warnBeforeInitialize(method);
      // MCP 2024-11-05: initialization comes first; only ping may come before it. Over SSE the
      // request is served: a client whose event stream reconnects (the SDK's EventSource does)
      // gets a new session and goes on without a new initialize.
      if (this.transport === 'stdio') {
        return errorResponse(id, NOT_INITIALIZED, `${method} before initialize: send initialize first`);
      }
    }
    // An id names one request of the session: while a call with this id runs, any request reusing it is refused.
    if (this.inFlight.has(id)) {
      return invalidRequest(id, `request id ${JSON.stringify(id)} is already in flight in this session`);
    }
    switch (method) {
      case METHODS.toolsCall:
        return this.call(id, params);
      case METHODS.toolsList:
        return successResponse(id, this.shared.listResult);
      case METHODS.ping:
        return successResponse(id, EMPTY_RESULT);
      case METHODS.initialize: {
        const parsed = InitializeParams.safeParse(params);
        if (!parsed.success) {
          const issue = parsed.error.issues[0];
          const where = issue === undefined || issue.path.length === 0 ? 'params' : issue.path.join('.');
          return invalidParams(
            id,
            `initialize needs params {protocolVersion, capabilities, clientInfo}: ${where}: ${issue?.message ?? 'invalid'}`,
          );
        }
        this.initialized = true;
        this.revision = negotiatedVersion(parsed.data.protocolVersion, this.shared.versions);
        return successResponse(id, { ...this.shared.initializeResult, protocolVersion: this.revision });
      }
      default:
        return errorResponse(id, JSONRPC_ERRORS.methodNotFound, `Method not found: ${method}`);
    }
  }

  private notification(method: string, params: Record<string, unknown> | undefined): void {
    if (method === METHODS.cancelled) {
      const requestId = params?.requestId;
      if (typeof requestId !== 'number' && typeof requestId !== 'string') return;
      const call = this.inFlight.get(requestId);
      // MCP: a cancellation for an unknown or finished request is ignored.
      if (call === undefined) return;
      const reason = typeof params?.reason === 'string' ? params.reason : 'cancelled by the client';
      this.cancel(requestId, call, reason);
    }
    // notifications/initialized and any other notification need no action and get no reply.
  }

  private call(id: JsonRpcId, params: Record<string, unknown> | undefined): Single {
    if (params === undefined) return invalidParams(id, 'tools/call needs params {name, arguments?}');
    const name = params.name;
    if (typeof name !== 'string') {
      return invalidParams(id, `tools/call: "name" must be a string, got ${describeJson(name)}`);
    }
    const raw = params.arguments;
    if (raw !== undefined && (typeof raw !== 'object' || raw === null || Array.isArray(raw))) {
      return invalidParams(id, `tools/call: "arguments" must be an object, got ${describeJson(raw)}`);
    }
    const tool = this.shared.byName.get(name);
    // MCP 2024-11-05 lists an unknown tool among protocol errors, with -32602 as its example.
    if (tool === undefined) return invalidParams(id, `Unknown tool: ${name}`);
    const checked = tool.check((raw as Record<string, unknown> | undefined) ?? {});
    if (!checked.ok) {
      const message = `Invalid arguments for tool ${name}: ${checked.reason}`;
      // MCP 2025-11-25 moved input validation errors to the tool execution errors (SEP-1303).
      return isBefore(this.revision, '2025-11-25')
        ? invalidParams(id, message)
        : successResponse(id, textResult(message, true));
    }
    const call = new ToolCall(this.info, this.shared.stats);
    let out: CallToolResult | Promise<CallToolResult>;
    try {
      out = tool.definition.handler(checked.args, call);
    } catch (e) {
      return successResponse(id, toolFailure(name, e));
    }
    if (!isThenable(out)) return resultResponse(id, name, out);
    this.inFlight.set(id, call);
    this.shared.counters.inFlight += 1;
    return Promise.resolve(out).then(
      (result) => this.finish(id, call, name, result),
      (e: unknown) => this.finish(id, call, name, toolFailure(name, e)),
    );
  }

  private finish(id: JsonRpcId, call: ToolCall, name: string, result: unknown): JsonRpcResponse | undefined {
    // MCP: no response is sent for a cancelled request.
    if (call.cancelled) return undefined;
    this.release(id, call);
    return resultResponse(id, name, result);
  }

  private cancel(id: JsonRpcId, call: ToolCall, reason: string): void {
    this.release(id, call);
    call.abort(reason);
  }

  private release(id: JsonRpcId, call: ToolCall): void {
    if (this.inFlight.get(id) !== call) return;
    this.inFlight.delete(id);
    this.shared.counters.inFlight -= 1;
  }

  private warnBeforeInitialize(method: string): void {
    if (this.warnedBeforeInitialize) return;
    this.warnedBeforeInitialize = true;
    this.shared.log(
      `session ${this.id}: ${JSON.stringify(method)} arrived before initialize; ${this.transport === 'stdio' ? `refused (error ${NOT_INITIALIZED})` : 'answered anyway (lenient, as the MCP SDK is: an SSE client may reconnect without a new initialize)'}`,
    );
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

function isParams(params: unknown): params is Record<string, unknown> | undefined {
  return params === undefined || (typeof params === 'object' && params !== null && !Array.isArray(params));
}

function collect(outs: readonly (JsonRpcResponse | undefined)[]): JsonRpcReply | undefined {
  const replies = outs.filter((o): o is JsonRpcResponse => o !== undefined);
  return replies.length === 0 ? undefined : replies;
}

function invalidRequest(id: JsonRpcId | null, reason: string): JsonRpcErrorResponse {
  return errorResponse(id, JSONRPC_ERRORS.invalidRequest, `Invalid Request: ${reason}`);
}

function invalidParams(id: JsonRpcId, message: string): JsonRpcErrorResponse {
  return errorResponse(id, JSONRPC_ERRORS.invalidParams, message);
}

/** A tool that throws has failed, not the protocol: MCP reports it as a result with isError. */
function toolFailure(name: string, e: unknown): CallToolResult {
  const message = e instanceof Error ? e.message : String(e);
  return textResult(`tool ${name} failed: ${message}`, true);
}

/** A handler returning something that is not a CallToolResult is a server bug: -32603. */
function resultResponse(id: JsonRpcId, name: string, result: unknown): JsonRpcResponse {
  if (
    typeof result === 'object' &&
    result !== null &&
    Array.isArray((result as { content?: unknown }).content)
  ) {
    return successResponse(id, result as Record<string, unknown>);
  }
  return errorResponse(
    id,
    JSONRPC_ERRORS.internalError,
    `Internal error: tool ${name} returned ${describeJson(result)}, not a result with a content array`,
  );
}
