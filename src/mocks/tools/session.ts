import {
  type BodyMessage,
  bodyMessages,
  errorResponse,
  JSONRPC_ERRORS,
  type JsonRpcId,
  type JsonRpcRequest,
  request,
  successResponse,
} from '../../protocol/jsonrpc/index.js';
import { METHODS, ToolsCallParams } from '../../protocol/mcp/index.js';
import { batchProblem } from '../limits.js';
import { mixSeed, type Random, seededRandom } from '../messages/random.js';
import { hasInexactId, inexactIdSources, isRawJson, replyIdOf } from './exact-ids.js';
import type { ToolJournal } from './journal.js';
import { journalSent } from './journal-sent.js';
import { outcomeOfCall, type ResolvedToolScenario } from './scenario.js';

/** Where a session's output goes: one stdio process, or one SSE stream. */
export interface SessionChannel {
  /** The session id for the journal (`stdio` or the SSE session id). */
  readonly session: string;
  readonly transport: 'stdio' | 'sse' | 'http';
  /** Write one JSON-RPC message (its JSON text). */
  write(text: string): void;
  /** Write a line that is not JSON (stdio only; SSE ignores the fault). */
  writeBanner?(text: string): void;
  /** Write recorded bytes as they are (a replay: SSE chunks with comments, stdio lines with their `\n`). */
  writeRaw?(bytes: Uint8Array): void;
  /** End the session from the server side (end the stream, exit). */
  close(): void;
}

/**
 * The messages of a parsed body as a session answers them: bodyMessages, except that a batch
 * past MAX_BATCH_MESSAGES is one Invalid Request (id null), so what one body makes the mock
 * journal stays bounded.
 */
export function sessionMessages(value: unknown): BodyMessage[] {
  const problem = batchProblem(value);
  return problem === undefined ? bodyMessages(value) : [{ kind: 'invalid', reason: problem, id: null }];
}

/** First id of the mock's own requests (pings): far from the small ids clients usually start at. */
export const MOCK_REQUEST_ID_BASE = 9001;

/**
 * The protocol side of one mock session, transport-free: it answers initialize, tools/list,
 * tools/call and ping as the scenario says and injects the scenario's faults. The transport
 * journals what it received and hands each parsed value to `receive`; the session journals
 * what it sends.
 */
export class MockToolSession {
  private closedFlag = false;
  private sent = 0;
  /** Set once a reply carries an id written with the client's digits (replyId). */
  private exactIds = false;
  private nextRequestId = MOCK_REQUEST_ID_BASE;
  private readonly random: Random;
  private readonly timers = new Set<{ timer: NodeJS.Timeout; resolve: () => void }>();
  private readonly waitingAnswers = new Map<JsonRpcId, () => void>();
  /** Replies go out in the order requests arrived, each after its delay. */
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly scenario: ResolvedToolScenario,
    private readonly journal: ToolJournal,
    private readonly channel: SessionChannel,
    sessionIndex = 0,
  ) {
    this.random = seededRandom(mixSeed(scenario.seed, sessionIndex));
  }

  get closed(): boolean {
    return this.closedFlag;
  }

  /** Call once the channel is open (after the SSE endpoint event). */
  start(): void {
    if (this.scenario.faults.closeStreamAfter === 0) this.close();
  }

  /**
   * One parsed JSON value from the client (MCP 2024-11-05 lets it be a batch: each message is
   * answered on its own), with the `text` it was parsed from when the transport has it: a
   * request id past 2^53, which JSON.parse rounds, is answered with the client's own digits.
   */
  receive(value: unknown, text?: string): void {
    const messages = sessionMessages(value);
    const sources = text !== undefined && hasInexactId(messages) ? inexactIdSources(text) : [];
    for (const [index, c] of messages.entries()) {
      if (this.closedFlag) return;
      switch (c.kind) {
        case 'request':
          this.onRequest(c.message, sources[index]);
          break;
        case 'notification':
          // notifications/initialized, cancellations and anything unknown need no answer.
          break;
        case 'success':
        case 'error':
          if (c.message.id !== null) this.waitingAnswers.get(c.message.id)?.();
          break;
        case 'invalid':
          this.enqueue(() =>
            errorResponse(c.id, JSONRPC_ERRORS.invalidRequest, `Invalid Request: ${c.reason}`),
          );
          break;
      }
    }
  }

  /** A line or body that was not JSON: JSON-RPC's parse error, id null. */
  receiveUnparseable(reason: string): void {
    if (this.closedFlag) return;
    this.enqueue(() => errorResponse(null, JSONRPC_ERRORS.parseError, `Parse error: ${reason}`));
  }

  /** Resolves once every reply queued so far went out (or the session closed). */
  drain(): Promise<void> {
    return this.queue;
  }

  /** The client went away: stop every timer, send nothing more. */
  dispose(): void {
    this.closedFlag = true;
    for (const t of this.timers) {
      clearTimeout(t.timer);
      t.resolve();
    }
    this.timers.clear();
  }

  /** End the session from the server side (fault closeStreamAfter). */
  close(): void {
    if (this.closedFlag) return;
    this.dispose();
    journalSent(this.journal, this.channel, 'closed', 'the mock closed the session');
    this.channel.close();
  }

  /** `idSource`: the digits of an id past 2^53 as the client wrote them, to answer with. */
  private onRequest(req: JsonRpcRequest, idSource?: string): void {
    const { method } = req;
    const id = this.replyId(req.id, idSource);
    if (method === METHODS.ping) {
      // Answered at once, outside the queue: a ping must not wait behind a slow reply.
      this.send(successResponse(id, {}));
      return;
    }
    if (method === METHODS.initialize) {
      this.enqueue(() =>
        successResponse(id, {
          protocolVersion: this.scenario.protocolVersion,
          capabilities: { tools: {} },
          serverInfo: this.scenario.serverInfo,
        }),
      );
      return;
    }
    if (method === METHODS.toolsList) {
      this.enqueue(() => successResponse(id, { tools: this.scenario.tools }));
      return;
    }
    if (method === METHODS.toolsCall) {
      this.enqueue(async () => {
        const params = ToolsCallParams.safeParse(req.params);
        if (!params.success) {
          return errorResponse(id, JSONRPC_ERRORS.invalidParams, 'Invalid params: tools/call needs a name');
        }
        if (this.scenario.faults.pingFirst) await this.pingClient();
        if (this.scenario.faults.lifecycleNotifications) this.sendLifecycleNotifications(id, req.params);
        const outcome = outcomeOfCall(this.scenario, params.data.name, params.data.arguments);
        const banner = this.scenario.faults.nonJsonStdout;
        if (banner !== undefined && this.channel.writeBanner && !this.closedFlag) {
          journalSent(this.journal, this.channel, 'banner', banner);
          this.channel.writeBanner(banner);
        }
        return 'result' in outcome
          ? successResponse(id, outcome.result)
          : errorResponse(id, outcome.error.code, outcome.error.message, outcome.error.data);
      });
      return;
    }
    this.enqueue(() => errorResponse(id, JSONRPC_ERRORS.methodNotFound, `Method not found: ${method}`));
  }

  /** The id a reply to request `id` carries: the client's own digits when JSON.parse rounded them. */
  private replyId(id: JsonRpcId, source: string | undefined): JsonRpcId {
    const reply = replyIdOf(id, source);
    if (reply === id) return id;
    this.exactIds = true;
    return reply as JsonRpcId;
  }

  /** Fault lifecycleNotifications: progress and a cancellation about the call `id`. */
  private sendLifecycleNotifications(id: JsonRpcId, params: Record<string, unknown> | undefined): void {
    const meta = params?._meta as { progressToken?: unknown } | undefined;
    const token =
      typeof meta?.progressToken === 'string' || typeof meta?.progressToken === 'number'
        ? meta.progressToken
        : `wirecheck-progress-${isRawJson(id) ? (id as unknown as { rawJSON: string }).rawJSON : String(id)}`;
    this.send({
      jsonrpc: '2.0',
      method: METHODS.progress,
      params: { progressToken: token, progress: 1, total: 2 },
    });
    this.send({
      jsonrpc: '2.0',
      method: METHODS.cancelled,
      params: { requestId: id, reason: 'wirecheck mock: a stray cancellation the client must ignore' },
    });
  }

  /** Send a ping request and wait for its answer, at most pingWaitMs. */
  private async pingClient(): Promise<void> {
    const id = this.nextRequestId++;
    const answered = new Promise<void>((resolve) => this.waitingAnswers.set(id, resolve));
    this.send(request(id, METHODS.ping));
    await Promise.race([answered, this.wait(this.scenario.faults.pingWaitMs)]);
    this.waitingAnswers.delete(id);
  }

  private enqueue(make: () => unknown | Promise<unknown>): void {
    this.queue = this.queue.then(async () => {
      if (this.closedFlag) return;
      const { replyDelayMs, notifications } = this.scenario.faults;
      if (replyDelayMs > 0) await this.wait(replyDelayMs);
      const reply = await make();
      for (let i = 0; i < notifications; i++) this.send(this.unknownNotification());
      this.send(reply);
    });
  }

  private unknownNotification(): unknown {
    const word = Math.floor(this.random() * 0x100000).toString(36);
    return {
      jsonrpc: '2.0',
      method: `notifications/x-wirecheck/unknown-${word}`,
      params: { note: `unsolicited ${word}`, n: Math.floor(this.random() * 1000) },
    };
  }

  private send(message: unknown): void {
    if (this.closedFlag) return;
    const text = JSON.stringify(message);
    // An id written with the client's digits is journaled as any parsed id is (a number).
    journalSent(this.journal, this.channel, 'message', text, this.exactIds ? JSON.parse(text) : message);
    this.channel.write(text);
    this.sent++;
    const limit = this.scenario.faults.closeStreamAfter;
    if (limit !== undefined && this.sent >= limit) this.close();
  }

  private wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const slot = {
        timer: setTimeout(() => {
          this.timers.delete(slot);
          resolve();
        }, ms),
        resolve,
      };
      this.timers.add(slot);
    });
  }
}
