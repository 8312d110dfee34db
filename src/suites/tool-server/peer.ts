import { HarnessBug } from '../../harness/check.js';
import { harnessBugOf } from '../../harness/programmer-error.js';
import { clip, detach } from '../../protocol/clip.js';
import {
  type ClassifiedMessage,
  classifyMessage,
  errorResponse,
  JSONRPC_ERRORS,
  type JsonRpcErrorResponse,
  type JsonRpcId,
  type JsonRpcResponse,
  successResponse,
} from '../../protocol/jsonrpc/index.js';
import { METHODS } from '../../protocol/mcp/index.js';
import type { CallGate } from './call-gate.js';
import { STDIO_WORDS, WireLog, type WireProblemKind, type WireVocabulary } from './diagnosis.js';
import { type KeptTextAccount, keptTextPool } from './kept-text.js';

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
  /** No reply will come (the request came back unchanged, or its answer was cut): `why` says so. */
  noReply(why: string): void;
}

/** A line or frame data as it arrived, kept or not: for a watch (RpcPeer.watch). */
export interface Arrival {
  readonly text: string;
  /** Its parse; undefined when it was not JSON. */
  readonly value: unknown;
  readonly kind: NonNullable<WireItem['kind']>;
}

/** What a watch picked from the arrivals since it began: the first `keep` of them, and how many in all. */
export interface Watch<T> {
  readonly found: readonly T[];
  readonly count: number;
  /** Ends the watch; what it found stays. */
  stop(): void;
}

/** Picks a watch keeps by default: enough to quote, few enough that a flood costs nothing. */
const WATCH_KEEP = 20;

/** Why a received text could not be read as JSON: `not-json` (syntax) or `too-deep` (nesting limit). */
export interface Unreadable {
  readonly kind: Extract<WireProblemKind, 'not-json' | 'too-deep'>;
  /** The reader's message, naming the limit where one was passed. */
  readonly detail: string;
}

/**
 * Bounds of what one peer keeps, so that a target flooding its output costs counts, not
 * memory: received items past `maxKeptItems` are read (replies still match) but not kept;
 * past `maxKeptText` characters of kept text, and for text that is not JSON-RPC, an item
 * keeps only its first `previewChars`. Measured: a server printing 64 KiB lines that are
 * not JSON for 20 s (1.7 GB) holds a reader at 270 MB RSS, its heap under 100 MB.
 */
export const PEER_LIMITS = {
  maxKeptItems: 10_000,
  maxKeptText: 64 * 1024 * 1024,
  previewChars: 1024,
  /** What an item keeps once the session's kept text (KeptTextAccount) is used up, of any text but a small reply. */
  markerChars: 80,
  /**
   * Items a session keeps as markers (texts of 80 characters or less too, once its kept text is
   * used up); past them a text that would be one is read and counted, not kept. A marker with
   * its item costs some 250 bytes: at 10,000 a session, a server flooding notifications of
   * 1 KiB in 31 sessions at once held 77 MB of markers alone.
   */
  maxMarkers: 1000,
  maxStrayReplies: 1000,
  /** Characters of replies to ids never sent kept (as unclaimed replies and in `strayReplies`). */
  maxStrayText: 4 * 1024 * 1024,
  /**
   * Characters of sent texts kept whole among the items; past them a sent item keeps a
   * preview. The harness's own messages are few; its answers to the server's requests echo
   * the server's ids, which can be long and many.
   */
  maxSentText: 16 * 1024 * 1024,
  /** The server's requests a session answers (a ping, say); past them they are counted, not answered. */
  maxAnsweredRequests: 10_000,
  /** A server's request whose string id is longer is not answered: the answer would echo it whole. */
  maxAnsweredIdChars: 1024,
  /** Characters of the server's method name an answer quotes. */
  maxQuotedMethodChars: 200,
  /** Texts sent, remembered to tell an echo (only texts up to 64 KiB). */
  maxRemembered: 1000,
  maxRememberedChars: 64 * 1024,
} as const;

/** Kinds of received text a check may read from an item: replies, batches, and JSON that may be a malformed reply. */
const READ_WHOLE: ReadonlySet<NonNullable<WireItem['kind']>> = new Set([
  'success',
  'error',
  'batch',
  'invalid',
]);

/**
 * The harness's side of one JSON-RPC session, without I/O: it records every message in
 * order, matches replies to waiters by id, keeps replies nobody waited for (a reply routed
 * to the wrong session shows up there) and answers the server's own requests (ping with an
 * empty result, anything else with Method not found) through `respond`.
 *
 * What arrives is also summed up in `wire` (a WireLog): what was not JSON, not JSON-RPC, or
 * the harness's own request, notification or batch echoed back. An echoed request is not answered (a `cat` would
 * otherwise get "method not found" and send that back as the reply) and ends the wait for
 * its reply at once; a ping is the server's own until the session echoed something else
 * (ownPing). Memory stays bounded whatever the target sends (PEER_LIMITS).
 */
export class RpcPeer {
  readonly items: WireItem[] = [];
  /** Replies that arrived for an id this peer never sent or stopped waiting for (the first 1,000). */
  readonly strayReplies: JsonRpcResponse[] = [];
  /**
   * Replies no waiter took when they arrived (late ones, strays), by id: what a later wait
   * finds. A reply a waiter took is the waiter's to keep: holding every one for the session's
   * life held a reader at 722 MB for ten 16 MiB tools/list pages.
   */
  private readonly unclaimed = new Map<JsonRpcId, JsonRpcResponse>();
  /** The ids of every reply received (the first maxKeptItems ids no request of this peer had). */
  private readonly answered = new Set<JsonRpcId>();
  /** Ids this peer sent requests with. */
  readonly sentIds = new Set<JsonRpcId>();
  /** The tools/call requests among them, with when each was sent (performance.now()). */
  private readonly callsSent = new Map<JsonRpcId, number>();
  /**
   * Asked before any tools/call leaves this peer (call-gate.ts); set by the suite's context on
   * every session it opens. Absent on a channel opened outside a run (the transport's own tests).
   */
  callGate: CallGate | undefined;
  /** The longest a tools/call took to be answered, in ms (0 before any was). */
  slowestCallMs = 0;
  /** What arrived, summed up: see Channel.diagnosis(). */
  readonly wire: WireLog;
  private readonly waiters = new Map<JsonRpcId, Waiter>();
  /** Requests this peer stopped waiting for before a reply came (the first maxStrayReplies). */
  private readonly gaveUp = new Set<JsonRpcId>();
  private receivedKept = 0;
  private markersKept = 0;
  private textKept = 0;
  private strayText = 0;
  /** Replies that arrived for no request of this peer, kept or not (strayReplies holds the first ones). */
  private strayCount = 0;
  private sentKept = 0;
  private sentText = 0;
  /** The server's requests answered (PEER_LIMITS.maxAnsweredRequests). */
  private answeredRequests = 0;
  /** Texts this peer sent, to tell an echo from a message. */
  private readonly sentTexts = new Set<string>();
  /** Whether one of this peer's own messages came back unchanged: a ping that does is an echo from then on. */
  private echoedOther = false;
  /**
   * The answers given to server pings that were the text of one of this peer's own (ownPing), as
   * sent. They are written in a key order of their own, so that one coming back to the byte is
   * the answer echoed, not the server's reply to the harness's ping of that id.
   */
  private readonly mirroredAnswers = new Set<string>();
  private readonly watchers = new Set<(arrival: Arrival) => void>();

  constructor(
    readonly label: string,
    private readonly respond: (message: unknown) => void,
    words: WireVocabulary = STDIO_WORDS,
    /** The session's share of what the process keeps whole; its channel keeps its copies on it too. */
    readonly keptText: KeptTextAccount = keptTextPool.account(),
  ) {
    this.wire = new WireLog(words);
  }

  recordSent(text: string, value?: unknown): void {
    // Before anything is kept or sent: a refused call must never reach the server.
    const calls = value === undefined ? [] : this.toolCallsIn(value);
    for (const name of calls) this.callGate?.record(name);
    if (this.sentKept < PEER_LIMITS.maxKeptItems) {
      this.sentKept += 1;
      const whole = this.sentText + text.length <= PEER_LIMITS.maxSentText;
      if (whole) this.sentText += text.length;
      const kept = whole ? text : `${text.slice(0, PEER_LIMITS.previewChars)}... (${text.length} characters)`;
      this.items.push({ at: performance.now(), direction: 'sent', text: kept });
    }
    if (text.length <= PEER_LIMITS.maxRememberedChars) {
      this.sentTexts.add(text);
      if (this.sentTexts.size > PEER_LIMITS.maxRemembered) {
        this.sentTexts.delete(this.sentTexts.values().next().value as string);
      }
    }
    if (value === undefined) return;
    const c = classifyMessage(value);
    // The requests of a batch are sent too: a server may answer them one by one (JSON-RPC 2.0
    // asks for an array, with a "should"), and those replies are not strays.
    if (c.kind === 'batch') for (const item of c.items) this.recordRequest(classifyMessage(item));
    else this.recordRequest(c);
  }

  /**
   * The tool names of the tools/call requests in a message or batch, each let through by the
   * gate; a HarnessBug for the first it refuses. Read from the raw value, not the parsed
   * envelope: a lenient server may run a call whose envelope JSON-RPC would refuse.
   */
  private toolCallsIn(value: unknown): string[] {
    const gate = this.callGate;
    if (gate === undefined) return [];
    const names: string[] = [];
    for (const item of Array.isArray(value) ? value : [value]) {
      if (typeof item !== 'object' || item === null) continue;
      const { method, params } = item as { method?: unknown; params?: unknown };
      if (method !== METHODS.toolsCall) continue;
      const name =
        typeof params === 'object' && params !== null ? (params as { name?: unknown }).name : undefined;
      const refused = gate.refusal(name);
      if (refused !== undefined) {
        throw new HarnessBug(
          `wirecheck was about to send a tools/call the call policy does not allow, on session ${this.label}: ${refused}. Every check picks its tools from the allowed ones, so this is a bug of wirecheck; nothing was sent`,
        );
      }
      names.push(name as string);
    }
    return names;
  }

  private recordRequest(c: ReturnType<typeof classifyMessage>): void {
    if (c.kind !== 'request') return;
    this.sentIds.add(c.message.id);
    if (c.message.method === METHODS.toolsCall) this.callsSent.set(c.message.id, performance.now());
  }

  /** How many replies are held whole for a later wait (those no waiter took when they arrived). */
  repliesHeld(): number {
    return this.unclaimed.size;
  }

  /** Whether a reply with this id arrived (to a request of this peer or to none). */
  hasReply(id: JsonRpcId): boolean {
    return this.answered.has(id);
  }

  /**
   * Whether a request this peer stopped waiting for is still unanswered: the server may have
   * stopped serving this session (one that never answers a string id, say, may answer nothing
   * after it), so another check should not be judged on it.
   */
  leftUnanswered(): boolean {
    for (const id of this.gaveUp) if (!this.answered.has(id)) return true;
    return false;
  }

  /** How many of the tools/call requests sent have had no reply. */
  unansweredCalls(): number {
    let n = 0;
    for (const id of this.callsSent.keys()) if (!this.answered.has(id)) n++;
    return n;
  }

  /** Keep a received item, within the bounds; the text is cut to a preview when `whole` is false. */
  private keep(text: string, kind: WireItem['kind'], whole: boolean): void {
    if (this.receivedKept >= PEER_LIMITS.maxKeptItems) {
      this.wire.drop();
      return;
    }
    const keepWhole =
      whole && this.textKept + text.length <= PEER_LIMITS.maxKeptText && this.keptText.take(text.length);
    const chars = keepWhole ? text.length : this.previewChars(text.length, kind);
    if (!keepWhole && chars === PEER_LIMITS.markerChars) {
      if (this.markersKept >= PEER_LIMITS.maxMarkers) {
        this.wire.drop();
        return;
      }
      this.markersKept++;
    }
    this.receivedKept++;
    // Copies: a slice would keep the whole chunk or line it came from alive.
    const kept = keepWhole ? detach(text) : clip(text, chars);
    this.textKept += kept.length;
    this.items.push({ at: performance.now(), direction: 'received', text: kept, ...(kind ? { kind } : {}) });
  }

  /**
   * How much of a text of `length` characters not kept whole an item keeps. A reply within
   * `previewChars` (or JSON that may be a malformed one) is kept whole all the same: a check reads
   * a small reply in a heavy session from its item (a batch's responses, an error answer). Any
   * other text keeps a preview while the session's kept text has room, else a marker, so that a
   * flood of small notifications costs a session markers, not 10,000 texts of 1 KiB.
   */
  private previewChars(length: number, kind: WireItem['kind']): number {
    if (length <= PEER_LIMITS.previewChars && kind !== undefined && READ_WHOLE.has(kind))
      return PEER_LIMITS.previewChars;
    return this.keptText.take(Math.min(length, PEER_LIMITS.previewChars))
      ? PEER_LIMITS.previewChars
      : PEER_LIMITS.markerChars;
  }

  /**
   * A line or frame data arrived: `value` is its parse, undefined when it was not JSON
   * (`unreadable` says why: not JSON, or nested past the reader's limit).
   */
  receive(text: string, value: unknown, parsed: boolean, unreadable?: Unreadable): void {
    this.wire.unit();
    if (!parsed) {
      this.wire.problem(unreadable?.kind ?? 'not-json', text, unreadable?.detail ?? 'not JSON');
      this.tell({ text, value: undefined, kind: 'not-json' });
      this.keep(text, 'not-json', false);
      return;
    }
    const c = classifyMessage(value);
    this.tell({ text, value, kind: c.kind });
    // A response is an echo only when it is an answer to a mirrored ping (mirroredAnswers): the
    // harness's plain answer to a server's ping id 7 is the same text as the server's correct
    // answer to the harness's own ping id 7.
    if (c.kind === 'success' && this.mirroredAnswers.has(text)) {
      this.echoed(text, c);
      return;
    }
    let mirrored = false;
    if (c.kind !== 'invalid' && c.kind !== 'success' && c.kind !== 'error' && this.sentTexts.has(text)) {
      if (!this.ownPing(c)) {
        this.echoed(text, c);
        return;
      }
      mirrored = true;
    }
    if (c.kind === 'invalid') this.wire.problem('not-jsonrpc', text, 'JSON, but not a JSON-RPC message');
    else this.wire.message();
    if (c.kind === 'batch') {
      // A batch is kept once, as it came; each message in it is a reply or a request of its own
      // (MCP 2025-03-26: implementations MUST support receiving batches), bounded by the line.
      this.keep(text, c.kind, true);
      for (const item of c.items) {
        const one = classifyMessage(item);
        if (one.kind !== 'batch') this.dispatch(one, () => JSON.stringify(item), false);
      }
      return;
    }
    this.dispatch(c, () => text, true, mirrored);
  }

  /**
   * Route one message: a reply to its waiter (or as a stray), a request answered (`mirrored`: a
   * ping that is the text of one of the harness's own, answered in a form of its own).
   */
  private dispatch(c: ClassifiedMessage, textOf: () => string, keepIt: boolean, mirrored = false): void {
    const reply = c.kind === 'success' || c.kind === 'error' ? c.message : undefined;
    const asked =
      reply !== undefined && reply.id !== null && (this.waiters.has(reply.id) || this.sentIds.has(reply.id));
    // A reply to no request of this peer past maxStrayText is kept as a preview only, and not as a reply.
    if (reply !== undefined && !asked) this.strayCount += 1;
    const keptStray = reply === undefined || asked || this.strayFits(textOf());
    if (keepIt) this.keep(textOf(), c.kind, c.kind !== 'invalid' && keptStray);
    if (reply !== undefined) {
      if (!keptStray) return;
      if (reply.id === null) {
        this.stray(reply);
        return;
      }
      const waiter = this.waiters.get(reply.id);
      if (
        !this.answered.has(reply.id) &&
        (waiter !== undefined || this.sentIds.has(reply.id) || this.answered.size < PEER_LIMITS.maxKeptItems)
      ) {
        this.answered.add(reply.id);
        if (waiter === undefined) this.unclaimed.set(reply.id, reply);
        const sentAt = this.callsSent.get(reply.id);
        if (sentAt !== undefined)
          this.slowestCallMs = Math.max(this.slowestCallMs, performance.now() - sentAt);
      }
      if (waiter !== undefined) {
        this.waiters.delete(reply.id);
        waiter.resolve(reply);
      } else if (!this.sentIds.has(reply.id)) {
        this.stray(reply);
      }
    } else if (c.kind === 'request') {
      // A server may ping its client (spec "Tool-server SSE events": keep-alive).
      const { id, method } = c.message;
      if (this.answeredRequests >= PEER_LIMITS.maxAnsweredRequests) return;
      if (typeof id === 'string' && id.length > PEER_LIMITS.maxAnsweredIdChars) return;
      this.answeredRequests += 1;
      if (mirrored) {
        const answer = { result: {}, id, jsonrpc: '2.0' };
        this.mirroredAnswers.add(JSON.stringify(answer));
        if (this.mirroredAnswers.size > PEER_LIMITS.maxRemembered) {
          this.mirroredAnswers.delete(this.mirroredAnswers.values().next().value as string);
        }
        this.respond(answer);
        return;
      }
      this.respond(
        method === METHODS.ping
          ? successResponse(id, {})
          : errorResponse(
              id,
              JSONRPC_ERRORS.methodNotFound,
              `the wirecheck harness does not handle ${method.slice(0, PEER_LIMITS.maxQuotedMethodChars)}`,
            ),
      );
    }
  }

  /**
   * Whether a reply to no request of this peer (evidence of a reply routed to the wrong session)
   * is kept, as a reply and whole among the items: while the text of such replies fits
   * `maxStrayText`; past it they are read and counted, not kept (a server flooding replies of
   * 1 MiB to ids never sent exhausted a 256 MB heap within 15 s).
   */
  private strayFits(text: string): boolean {
    if (this.strayText + text.length > PEER_LIMITS.maxStrayText || !this.keptText.take(text.length))
      return false;
    this.strayText += text.length;
    return true;
  }

  private stray(reply: JsonRpcResponse): void {
    if (this.strayReplies.length < PEER_LIMITS.maxStrayReplies) this.strayReplies.push(reply);
  }

  /**
   * Whether a request that is the same text as one this peer sent is the server's own ping, not
   * an echo. The two sides number their requests apart (MCP 2024-11-05: an id must not have been
   * used "by the requestor"), so a server's `{"jsonrpc":"2.0","id":7,"method":"ping"}` is the
   * harness's ping id 7 to the byte whenever its counter meets the harness's, and a ping MUST be
   * answered. Once the session has echoed anything else (`cat` echoes initialize and
   * notifications/initialized first), a ping is an echo too: answering it would have `cat` send
   * the answer back as the reply to the harness's own ping.
   */
  private ownPing(c: ClassifiedMessage): boolean {
    return c.kind === 'request' && c.message.method === METHODS.ping && !this.echoedOther;
  }

  /**
   * One of this peer's own messages came back unchanged: recorded, never answered. A request
   * ends the wait for its reply; so does an answer to a mirrored ping, sent back where the reply
   * to the harness's own ping of that id was awaited.
   */
  private echoed(text: string, c: ClassifiedMessage): void {
    this.echoedOther = true;
    this.wire.problem('echo', text, 'sent by wirecheck, then received back unchanged');
    this.keep(text, c.kind, true);
    if (c.kind !== 'request' && c.kind !== 'success') return;
    const id = c.message.id;
    const waiter = id === null ? undefined : this.waiters.get(id);
    if (waiter === undefined || id === null) return;
    this.waiters.delete(id);
    waiter.noReply(
      c.kind === 'request'
        ? `the server echoed the request back instead of answering it: it looks like \`cat\`, not a tool server`
        : `the server sent back wirecheck's own answer to a ping of the same id it had sent (${JSON.stringify(text)}) instead of answering: it echoes requests, it does not answer them`,
    );
  }

  /**
   * The channel stopped reading what would have carried these requests' replies (an answer
   * stream cut at a size limit): their waits end now, saying why, instead of at their budget.
   */
  unreadable(ids: readonly JsonRpcId[], why: string): void {
    for (const id of ids) {
      const waiter = this.waiters.get(id);
      if (waiter === undefined) continue;
      this.waiters.delete(id);
      waiter.noReply(why);
    }
  }

  /**
   * Watch every text received from now on, kept among the items or not: `pick` returns what a
   * check needs of an arrival (a short quote, an id), or undefined to pass it by. A check that
   * judges what arrives after a point judges from a watch, not from `items`, which stop growing
   * at their caps while reading goes on. Stop it when done (in a finally).
   */
  watch<T>(pick: (arrival: Arrival) => T | undefined, keep: number = WATCH_KEEP): Watch<T> {
    const found: T[] = [];
    let count = 0;
    let bug: HarnessBug | undefined;
    const see = (arrival: Arrival) => {
      let picked: T | undefined;
      try {
        picked = pick(arrival);
      } catch (e) {
        // A pick runs in the stream's data handler: what it throws would escape to the event
        // loop and stop the whole run. It is wirecheck's own code, so a bug: the watch ends,
        // and the check that reads it meets the bug.
        bug =
          harnessBugOf(e) ??
          new HarnessBug(
            `a watch on ${this.label} threw ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`,
            {
              cause: e,
            },
          );
        this.watchers.delete(see);
        return;
      }
      if (picked === undefined) return;
      count++;
      if (found.length < keep) found.push(picked);
    };
    this.watchers.add(see);
    return {
      get found() {
        if (bug !== undefined) throw bug;
        return found;
      },
      get count() {
        if (bug !== undefined) throw bug;
        return count;
      },
      stop: () => {
        this.watchers.delete(see);
      },
    };
  }

  private tell(arrival: Arrival): void {
    for (const see of this.watchers) see(arrival);
  }

  /** Replies received with a null id (parse errors, invalid requests), in order. */
  nullIdReplies(): JsonRpcResponse[] {
    return this.strayReplies.filter((r) => r.id === null);
  }

  /** Wait up to `ms` for the reply to `id`; resolves at once when it already arrived. */
  wait(id: JsonRpcId, ms: number, gone: () => string | undefined): Promise<Awaited> {
    const already = this.unclaimed.get(id);
    if (already !== undefined) return Promise.resolve({ reply: already });
    const straysBefore = this.strayCount;
    const keptBefore = this.strayReplies.length;
    return new Promise((resolve) => {
      const finish = (value: Awaited) => {
        clearTimeout(timer);
        clearInterval(poll);
        this.waiters.delete(id);
        if (value.reply === undefined && this.gaveUp.size < PEER_LIMITS.maxStrayReplies) this.gaveUp.add(id);
        resolve(value);
      };
      // What arrived meanwhile is part of why nothing came (a banner, a `yes`, nothing at all).
      const explain = (why: string) => (this.wire.stopped ? why : `${why}; ${this.wire.diagnosis().summary}`);
      // A reply to an id never sent, meanwhile, is most often this request's, under a wrong id.
      const strays = () => strayReplySentence(this.strayCount - straysBefore, this.strayReplies[keptBefore]);
      const timer = setTimeout(
        () => finish({ reply: undefined, why: explain(`no reply within ${ms} ms${strays()}`) }),
        ms,
      );
      // A server that died, or that the channel stopped reading, will never answer: stop waiting early and say why.
      const poll = setInterval(() => {
        const why = gone();
        if (why !== undefined) finish({ reply: undefined, why: explain(why) });
      }, 50);
      this.waiters.set(id, {
        resolve: (reply) => finish({ reply }),
        noReply: (why) => finish({ reply: undefined, why }),
      });
    });
  }
}

/**
 * '' when no reply to an id never sent arrived during a wait; otherwise what did, e.g.
 * ` (meanwhile 1 reply arrived with an id no request had: id -32603, error 1 "...")`.
 */
export function strayReplySentence(count: number, first: JsonRpcResponse | undefined): string {
  if (count <= 0) return '';
  const replies = count === 1 ? '1 reply' : `${count.toLocaleString('en-US')} replies`;
  return ` (meanwhile ${replies} arrived with an id no request had${first === undefined ? '' : `, the first: ${describeReply(first)}`})`;
}

function describeReply(reply: JsonRpcResponse): string {
  const id = `id ${JSON.stringify(reply.id)}`;
  // A success may carry any other member, an `error` too: only a reply without a result is an error.
  if ('result' in reply) return `${id}, a result`;
  const { code, message } = (reply as JsonRpcErrorResponse).error;
  return `${id}, error ${code} ${JSON.stringify(clip(message, 120))}`;
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
