import { certificateWords, probeCertificate } from '../../harness/certificate-refusal.js';
import {
  CheckFailure,
  CheckSkipped,
  NotExercised,
  TargetGone,
  TargetUnavailable,
} from '../../harness/check.js';
import { LeftoverLedger } from '../../harness/containment/index.js';
import { UsageError } from '../../harness/errors.js';
import { firstLinesBlock } from '../../harness/output-lines.js';
import {
  InitializeResult,
  isProtocolRevision,
  looksLikeVersion,
  PROTOCOL_REVISIONS,
  type Tool,
  transportRevisionMismatch,
} from '../../protocol/mcp/index.js';
import { redactCommand, redactUrl } from '../../recording/tools/redact-target.js';
import { CallBacklog } from './call-backlog.js';
import { CallLedger } from './call-gate.js';
import { type CallPolicy, callPolicy, unlistedNamesProblem } from './call-policy.js';
import type { Channel } from './channel.js';
import { rpcEvidence } from './evidence.js';
import { openGet, type TargetHeaders } from './http.js';
import { IdleStream } from './idle-stream.js';
import { readTools } from './listed-tools.js';
import { SLOW_START_HINT, streamableHttpHint, whyNoInitialize } from './preflight.js';
import { prerequisite } from './prerequisite.js';
import { describeExit, type ServerProcess, spawnServer } from './process.js';
import { RoomMade } from './room-made.js';
import { call, delay, type Exchange, initialize } from './rpc.js';
import { SessionOwners } from './session-owners.js';
import { SilenceWatch, watchSilence } from './silence.js';
import { silenceMs } from './slow-call.js';
import { SpareProcesses } from './spare-processes.js';
import { openSseChannel, type SseChannel, SseOpenError } from './sse-channel.js';
import { openStdioChannel, type StdioChannel } from './stdio-channel.js';
import { openStreamableChannel, type StreamableChannel } from './streamable-channel.js';
import { describeTarget, revisionMismatchOf, revisionOf, type ToolServerTarget } from './target.js';
import { headersToSend } from './target-headers.js';

/** Tuning of the suite itself (not of the target). */
/** A reply's budget (`replyMs`), and a new stdio process's start allowance before its first (`startupMs`). */
export const DEFAULT_REPLY_MS = 5000;
export const DEFAULT_STARTUP_MS = 5000;

export interface ToolServerSuiteOptions {
  /** Budget for one reply (default 5000 ms). */
  readonly replyMs?: number;
  /**
   * stdio: how long a new server process may take to start, on top of replyMs for its first
   * reply (default 5000 ms). Starting a process is not answering: a loaded CI machine can take
   * seconds to start one, and that must not read as a server that does not answer.
   */
  readonly startupMs?: number;
  /** Budget for a POST's response, and for a stream's headers and first event (default 3000 ms, the probe's capture). */
  readonly httpMs?: number;
  /** Budget for `--start` until the stream URL answers (default 15000 ms). */
  readonly startMs?: number;
  /** Cap on tools/call runs of the generated-arguments property, quick tier (default 40) and --full (default 400). */
  readonly maxCalls?: number;
  /** Wall-clock limit of the generated-arguments property, past which its cases are not judged (default 40000 ms). */
  readonly generatedCallsMs?: number;
  readonly maxFullCalls?: number;
  /** fast-check runs of the session model, quick tier (default 5: 5 x 10 sessions) and --full (default 20). */
  readonly modelRuns?: number;
  readonly maxFullModelRuns?: number;
  /**
   * stdio: server processes kept started ahead of the checks (default: the run's --jobs, so that
   * many start at once; none with --jobs 1).
   */
  readonly spareProcesses?: number;
}

/** The pages of tools/list, following nextCursor (at most MAX_PAGES). */
export interface ToolPages {
  /** Every page's raw result, in order. */
  readonly results: readonly unknown[];
  /** Why paging stopped early: an error reply, no reply, a repeated cursor, too many pages. */
  readonly problem?: string;
  /** Set when paging stopped at MAX_PAGES_CHARS, with a nextCursor still to follow: no fault, a bound. */
  readonly cut?: string;
  /** The channel the pages were asked on. */
  readonly channel: Channel;
}

export const MAX_PAGES = 50;

/**
 * Characters of tools/list results read, past which no further page is asked for: each page
 * may be as long as a message may be (16 MiB), and every page is kept for the checks.
 */
export const MAX_PAGES_CHARS = 16 * 1024 * 1024;

/** HTTP statuses that say "no room for another session now": capacity, not a routing fault. */
export const CAPACITY_STATUSES: readonly number[] = [429, 503];

/** Between two tries of a stream refused for capacity, once room was made (room-made.ts). */
const ASK_AGAIN_PAUSE_MS = 100;

/** Most a GET waits, past the silence budget, for tool calls the suite left unanswered. */
export const MAX_BACKLOG_WAIT_MS = 120_000;

/**
 * A new session refused with 503 or 429: the server bounds how many sessions it holds at
 * once (wirecheck's own servers do), and the suite's own sessions (the main one, the idle
 * stream) count against that bound. Not a fault of the server: a check that needs the session
 * is not exercised; one that opens many (the session models, sse.concurrent-routing) stops
 * opening and judges those it has.
 */
export class SessionRefused extends NotExercised {}

/**
 * initialize on a new session got no reply at all within its budget (not a wrong one). A check
 * that opened many sessions at once may have slowed the server itself: it judges no routing
 * then (openFailure, checks/open-within-capacity.ts).
 */
export class InitializeUnanswered extends CheckFailure {
  override readonly name = 'InitializeUnanswered';
}

export interface ToolServerCtx {
  readonly target: ToolServerTarget;
  readonly transport: 'stdio' | 'sse' | 'http';
  /** The protocol version the suite offers in initialize (offered-version.ts). */
  readonly offeredVersion: string;
  /**
   * The protocolVersion of the first initialize result (the preflight's), undefined when it
   * is not a string. A server may answer an offer it does not support with another version.
   */
  readonly negotiatedVersion: string | undefined;
  readonly replyMs: number;
  /** Budget for the first reply of a session just opened: replyMs, plus startupMs on stdio (a new process). */
  readonly firstReplyMs: number;
  readonly httpMs: number;
  readonly options: ToolServerSuiteOptions;
  /** serverInfo of the first initialize (the preflight's). */
  readonly serverInfo: { readonly name: string; readonly version: string } | undefined;
  /** SSE: the idle stream opened with the suite, watched for keep-alives until the end (idle-stream.ts). */
  readonly idle: IdleStream;
  /** The shared initialized session; replaced by a new one when a check left it dead. */
  main(): Promise<Channel>;
  /**
   * A new initialized session (stdio: a new process; sse: a new stream). Closed when the check
   * that opened it ends at the latest; one opened to make a shared value, with the ctx.
   */
  connect(label: string): Promise<Channel>;
  /** A new session that is not initialized. */
  connectRaw(label: string): Promise<Channel>;
  /** SSE only (CheckSkipped on stdio): a new raw stream, not initialized. */
  openStream(label: string): Promise<SseChannel>;
  /** SSE only: a new stream whose endpoint event came; initialized when `init`. */
  openSession(label: string, init: boolean): Promise<SseChannel>;
  /** stdio only (CheckSkipped on sse): a new process, not initialized. */
  spawnStdio(label: string): StdioChannel;
  /** Streamable HTTP only (CheckSkipped otherwise): a new session, not initialized (nothing sent yet). */
  openHttp(label: string): StreamableChannel;
  /**
   * Close a session the caller no longer needs, to make room on a server that bounds its
   * sessions: over SSE a stream refused for capacity soon after is asked again (room-made.ts).
   */
  makeRoom(channel: Channel): Promise<void>;
  /** Every session the suite holds open now (a reply misrouted to any of them shows as a stray there). */
  openChannels(): Channel[];
  /**
   * Every well-formed tool of tools/list (all pages), asked once per run; one the Tool schema
   * refuses is left out (tools.list-shape judges it; the policy's `unread` names it).
   */
  tools(): Promise<Tool[]>;
  /** The raw pages of tools/list, for the checks that judge them. */
  toolPages(): Promise<ToolPages>;
  /** Which listed tools the checks may call (--call-tools; call-policy.ts). */
  policy(): Promise<CallPolicy>;
  /** The gate every tools/call of the run passes, and the calls it let through (call-gate.ts). */
  readonly calls: CallLedger;
  /**
   * A value computed once per run and shared by the checks that judge it. The sessions `make`
   * opens stay open for them (session-owners.ts), unless making it failed; once every check
   * `usedBy` names has ended, a session refused for capacity may have their room.
   */
  shared<T>(key: string, make: () => Promise<T>, usedBy?: readonly string[]): Promise<T>;
  /** Run the body of the check `id`: the sessions it opens outside `shared` are closed when it ends or `signal` aborts. */
  ownSessions<T>(id: string, signal: AbortSignal, body: () => Promise<T>): Promise<T>;
  /** stdio: what every server process left running once its session was closed (tool-server.processes.none-left). */
  readonly leftovers: LeftoverLedger;
}

/**
 * Open the suite: start the server when `--start` asks, then the preflight: one session
 * must get an initialize result (stdio: the process answers on stdout; sse: GET gives 200
 * text/event-stream with an endpoint event, and initialize is answered on the stream). A
 * target that cannot get that far is unavailable (exit 2) with one message saying what
 * was run and what was seen; it is never reported as a list of failed checks.
 */
export async function openToolServer(
  target: ToolServerTarget,
  options: ToolServerSuiteOptions = {},
  /** The run's --jobs: how many stdio processes may start at once (the one asked for and spares). */
  jobs = 1,
  /** The ids of the checks the run selected, when known (a shared value waits only for those). */
  selected?: readonly string[],
): Promise<ToolServerCtx & { close(): Promise<void> }> {
  const mismatch = revisionMismatchOf(target);
  if (mismatch !== undefined) throw new UsageError(mismatch);
  const replyMs = options.replyMs ?? DEFAULT_REPLY_MS;
  const firstReplyMs =
    replyMs +
    (target.kind === 'stdio' ? (target.startTimeoutMs ?? options.startupMs ?? DEFAULT_STARTUP_MS) : 0);
  const httpMs = options.httpMs ?? 3000;
  const silentMs = silenceMs(replyMs);
  const channels = new Set<Channel>();
  let started: ServerProcess | undefined;
  const memo = new Map<string, Promise<unknown>>();
  let sessions = 0;
  /** Set once the preflight passed: from then on a server that stops answering is gone. */
  let live = false;

  const spares =
    target.kind === 'stdio'
      ? new SpareProcesses(() => spawnServer(target.command), options.spareProcesses ?? (jobs > 1 ? jobs : 0))
      : undefined;
  const close = async () => {
    await spares?.close();
    await Promise.all([...channels].map((c) => c.close()));
    channels.clear();
    await started?.kill();
  };

  const owners = new SessionOwners(
    async (c) => {
      if (!channels.has(c)) return false;
      await c.close();
      return true;
    },
    selected === undefined ? undefined : new Set(selected),
  );
  const idle = new IdleStream(
    (label) => openSession(label, true),
    async () => owners.closeShared(await mainChannel.catch(() => undefined)),
  );
  const silence = new SilenceWatch();
  const backlog = new CallBacklog(replyMs);
  const calls = new CallLedger();
  const track = <C extends Channel>(c: C): C => {
    c.peer.callGate = calls;
    channels.add(c);
    owners.opened(c);
    watchSilence(c, silence);
    const original = c.close.bind(c);
    // A channel closed by a check leaves the registry, so a long run does not accumulate them.
    (c as { close: () => Promise<void> }).close = async () => {
      if (channels.delete(c)) {
        backlog.observe(c.peer.slowestCallMs);
        backlog.left(c.peer.unansweredCalls());
      }
      silence.unwatch(c);
      await original();
    };
    return c;
  };
  /**
   * "3 sessions: main, idle, observer": the sessions the suite holds on the server now (its main
   * session, the idle stream, the checks'). Over Streamable HTTP a channel holds one only once
   * its initialize was answered: one still waiting for the answer holds none yet.
   */
  const sessionsHeld = () => {
    const open = [...channels].filter((c) => c.gone() === undefined && initializedIfHttp(c));
    return `${open.length} session${open.length === 1 ? '' : 's'}${open.length === 0 ? '' : `: ${open.map((c) => c.peer.label).join(', ')}`}`;
  };

  const leftovers = new LeftoverLedger();
  const spawnStdio = (label: string): StdioChannel => {
    if (target.kind !== 'stdio') throw new CheckSkipped('this check applies to the stdio transport only');
    const channel = track(openStdioChannel(target.command, label, {}, spares?.take()));
    const closeChannel = channel.close.bind(channel);
    let recorded = false;
    (channel as { close: () => Promise<void> }).close = async () => {
      await closeChannel();
      if (!recorded) leftovers.record(`the session ${label}`, channel.process.survivors());
      recorded = true;
    };
    return channel;
  };

  const offeredVersion = revisionOf(target);
  const targetHeaders = headersToSend(target);
  const sent = targetHeaders === undefined ? {} : { targetHeaders };
  const openHttp = (label: string): StreamableChannel => {
    if (target.kind !== 'http')
      throw new CheckSkipped('this check applies to the Streamable HTTP transport only');
    return track(
      openStreamableChannel(target.url, {
        label,
        postTimeoutMs: httpMs,
        protocolVersion: offeredVersion,
        ...sent,
      }),
    );
  };

  /** The server stopped answering during the run: every check after this one is not run. */
  const gone = (what: string, cause?: string): TargetGone => {
    const exit = started?.exit() === undefined ? '' : `; the --start command ${describeExit(started)}`;
    const message = `${what}${exit}`;
    return new TargetGone(message, undefined, undefined, undefined, { sharedCause: cause ?? message });
  };

  const openStreamOnce = async (label: string): Promise<SseChannel> => {
    if (target.kind !== 'sse') throw new CheckSkipped('this check applies to the SSE transport only');
    const open = (timeoutMs: number) =>
      openSseChannel(target.url, { label, timeoutMs, postTimeoutMs: httpMs, ...sent });
    try {
      return track(await open(httpMs).catch((e: unknown) => openAgainIfBusy(e, open)));
    } catch (e) {
      if (!(e instanceof SseOpenError)) throw e;
      if (live) throw gone(`the server stopped answering at ${redactUrl(target.url)} (${e.message})`);
      throw new CheckFailure(e.message, 'HTTP 200 and an event stream', 'no stream');
    }
  };

  const roomMade = new RoomMade();
  const makeRoom = async (channel: Channel) => {
    await channel.close();
    roomMade.mark();
  };

  /**
   * A new stream; refused for capacity, it is asked again once room was made: a check closed a
   * session, sessions kept for checks that all ended were closed, or the idle stream let its go.
   */
  const openStream = async (label: string): Promise<SseChannel> => {
    for (;;) {
      const channel = await openStreamOnce(label);
      if (!CAPACITY_STATUSES.includes(channel.status)) return channel;
      await channel.close();
      // Sessions kept for checks that all ended go first: letting the idle stream go costs a new watch.
      // Bounded: each closes a session once, and a refusal asks again only within ASK_AGAIN_MS of one.
      if ((await owners.releaseDone()) || (!roomMade.recently() && (await idle.letGo()))) roomMade.mark();
      if (!roomMade.recently()) {
        throw new SessionRefused(
          `GET ${target.kind === 'sse' ? redactUrl(target.url) : ''} for session ${label} was answered HTTP ${channel.status}: the server takes no more sessions now (the suite holds ${sessionsHeld()}), so this check could not open the session it needs`,
        );
      }
      await delay(ASK_AGAIN_PAUSE_MS);
    }
  };

  /**
   * A GET left without response headers while the server lives may meet a server whose
   * process a slow tool call holds (one request at a time): it gets as long as a session gets
   * to answer anything (silentMs), and more for each tool call the suite left unanswered
   * (CallBacklog, up to MAX_BACKLOG_WAIT_MS), before the server counts as gone.
   */
  const openAgainIfBusy = async (
    e: unknown,
    open: (timeoutMs: number) => Promise<SseChannel>,
  ): Promise<SseChannel> => {
    if (!(e instanceof SseOpenError) || !e.timedOut || !live || started?.exit() !== undefined) throw e;
    let openCalls = 0;
    for (const c of channels) {
      backlog.observe(c.peer.slowestCallMs);
      if (c.gone() === undefined) openCalls += c.peer.unansweredCalls();
    }
    const owedMs = Math.min(MAX_BACKLOG_WAIT_MS, Math.round(backlog.owedMs(openCalls)));
    const waitMs = silentMs + owedMs;
    return open(waitMs).catch((again: unknown) => {
      if (!(again instanceof SseOpenError)) throw again;
      const owed = owedMs === 0 ? '' : ` (${owedMs} ms of it for tool calls the suite left unanswered)`;
      throw new SseOpenError(`${e.message}, nor within ${waitMs} ms more${owed}`, again.timedOut);
    });
  };

  const openSession = async (label: string, init: boolean): Promise<SseChannel> => {
    const channel = await openStream(label);
    await channel.firstEvent(httpMs);
    if (channel.endpoint() === undefined) {
      // The first event may be something else (the endpoint check's business): give it the budget.
      const deadline = performance.now() + httpMs;
      while (channel.endpoint() === undefined && channel.gone() === undefined && performance.now() < deadline)
        await delay(20);
    }
    if (channel.endpoint() === undefined) {
      // A stream that ended first (cut at a limit, say) says why, not that the time ran out.
      const ended = channel.gone();
      await channel.close();
      throw new CheckFailure(
        `GET ${target.kind === 'sse' ? redactUrl(target.url) : ''} gave no usable endpoint event ${ended === undefined ? `within ${httpMs} ms` : `(${ended})`} (HTTP ${channel.status}; received ${JSON.stringify(channel.frameItems().slice(0, 3))})`,
        'an event `endpoint` whose data is the POST path with a sessionId',
        JSON.stringify(channel.frameItems().slice(0, 5)),
        undefined,
        { sharedCause: `the server gave a new stream no endpoint event within ${httpMs} ms` },
      );
    }
    if (init) await mustInitialize(channel);
    return channel;
  };

  /** initialize on a session just opened (a new process on stdio: its budget includes the start). */
  const mustInitialize = async (channel: Channel): Promise<Exchange> => {
    const ex = await initialize(channel, firstReplyMs, revisionOf(target));
    if (ex.reply === undefined || !('result' in ex.reply)) {
      const status = ex.post?.status;
      if (channel.transport === 'http' && status !== undefined && CAPACITY_STATUSES.includes(status)) {
        await channel.close();
        throw new SessionRefused(
          `initialize on ${channel.peer.label} was answered HTTP ${status}: the server takes no more sessions now (the suite holds ${sessionsHeld()}; ${JSON.stringify(ex.post?.body.slice(0, 200))}), so this check could not open the session it needs`,
        );
      }
      if (live && channel.transport === 'stdio' && channel.gone() !== undefined) {
        // The exit is the cause other checks' failures on processes that died share (failWith).
        throw gone(
          `the server started for a new session: ${whyNoInitialize(channel, ex, firstReplyMs)}`,
          channel.gone(),
        );
      }
      throw new (ex.reply === undefined ? InitializeUnanswered : CheckFailure)(
        `initialize on ${channel.peer.label} was not answered with a result: ${ex.why ?? JSON.stringify(ex.reply)}`,
        'an initialize result',
        ex.reply === undefined ? 'nothing' : JSON.stringify(ex.reply),
        rpcEvidence(`initialize on ${channel.peer.label}`, [channel]),
        { sharedCause: 'initialize on a new session was not answered with a result' },
      );
    }
    return ex;
  };

  const connectRaw = async (label: string): Promise<Channel> =>
    target.kind === 'stdio'
      ? spawnStdio(label)
      : target.kind === 'http'
        ? openHttp(label)
        : openSession(label, false);

  const connect = async (label: string): Promise<Channel> => {
    for (;;) {
      const channel = await connectRaw(label);
      try {
        await mustInitialize(channel);
        return channel;
      } catch (e) {
        // Streamable HTTP: refused for capacity, asked again once sessions no check will use
        // again are ended (their DELETE answered). Bounded: each round ends at least one.
        if (!(e instanceof SessionRefused && (await owners.releaseDone()))) throw e;
      }
    }
  };

  // --- preflight ---
  if (target.kind !== 'stdio' && target.start !== undefined) {
    started = spawnServer(target.start);
    const problem = await waitUntilAnswers(
      target.url,
      started,
      target.startTimeoutMs ?? options.startMs ?? 15_000,
      targetHeaders,
    );
    if (problem !== undefined) {
      await close();
      throw new TargetUnavailable(problem);
    }
  }
  let first: { channel: Channel; ex: Exchange };
  try {
    first = await preflight(target, {
      replyMs: firstReplyMs,
      httpMs,
      open: async () => {
        if (target.kind === 'stdio') return spawnStdio('main');
        if (target.kind === 'http') return openHttp('main');
        return track(
          await openSseChannel(target.url, {
            label: 'main',
            timeoutMs: httpMs,
            postTimeoutMs: httpMs,
            ...sent,
          }),
        );
      },
      started,
    });
  } catch (e) {
    await close();
    throw e;
  }
  live = true;
  // Only a server that answered its first session gets spares: one that cannot start costs one start.
  spares?.fill();
  const info = InitializeResult.safeParse((first.ex.reply as { result?: unknown }).result);
  const serverInfo = info.success ? info.data.serverInfo : undefined;
  const answered = (first.ex.reply as { result?: { protocolVersion?: unknown } | null }).result
    ?.protocolVersion;
  const negotiatedVersion = typeof answered === 'string' ? answered : undefined;
  sessions = 1;
  let mainChannel: Promise<Channel> = Promise.resolve(first.channel);
  // A main session that died, or left a request unanswered (a check's, maybe one a correct
  // server would answer: the server may serve nothing more on it), is replaced, so that one
  // check's fault is not every later check's: the same checks judge a server alike in any
  // order, and with --only.
  const main = async (): Promise<Channel> => {
    const before = mainChannel;
    const current = await before.catch(() => undefined);
    if (current !== undefined && current.gone() === undefined && !current.peer.leftUnanswered()) {
      owners.uses(current);
      return current;
    }
    if (mainChannel === before) {
      sessions += 1;
      mainChannel = owners.asShared(() => connect(`main-${sessions}`));
      if (current?.gone() !== undefined) await current.close();
      else if (current !== undefined) await owners.retire(current);
    }
    const next = await mainChannel;
    owners.uses(next);
    return next;
  };

  // SSE: the keep-alive watch starts now and is judged by the last check, so its 30 s or so
  // (two beats of a server beating every 15 s) overlap the rest of the suite instead of adding to it.
  if (target.kind === 'sse') await idle.start();

  const shared = <T>(key: string, make: () => Promise<T>, usedBy?: readonly string[]): Promise<T> => {
    if (usedBy !== undefined) owners.assertNamed(key, usedBy);
    let promise = memo.get(key) as Promise<T> | undefined;
    if (promise === undefined) {
      promise = owners.asShared(make, usedBy);
      memo.set(key, promise);
    }
    return promise;
  };

  const toolPages = () =>
    shared('tool-pages', async (): Promise<ToolPages> => {
      const channel = await main();
      const results: unknown[] = [];
      const cursors = new Set<string>();
      let cursor: string | undefined;
      let chars = 0;
      for (let page = 0; page < MAX_PAGES; page++) {
        const params = cursor === undefined ? {} : { cursor };
        const reply = await call(channel, 'tools/list', params, replyMs);
        if (!('result' in reply)) {
          if (page === 0)
            return {
              results,
              channel,
              problem: `tools/list was answered with an error: ${JSON.stringify(reply).slice(0, 300)}`,
            };
          return {
            results,
            channel,
            problem: `tools/list with cursor ${JSON.stringify(cursor)} (a nextCursor the server gave) was answered with an error: ${JSON.stringify(reply).slice(0, 300)}`,
          };
        }
        results.push(reply.result);
        const next = (reply.result as { nextCursor?: unknown } | null)?.nextCursor;
        if (next === undefined || next === null) return { results, channel };
        if (typeof next !== 'string')
          return { results, channel, problem: `nextCursor is not a string: ${JSON.stringify(next)}` };
        if (cursors.has(next))
          return {
            results,
            channel,
            problem: `nextCursor ${JSON.stringify(next)} came a second time (the pages loop)`,
          };
        cursors.add(next);
        cursor = next;
        chars += JSON.stringify(reply.result).length;
        if (chars > MAX_PAGES_CHARS) {
          return {
            results,
            channel,
            cut: `the ${results.length} pages read hold ${chars} characters, more than the ${MAX_PAGES_CHARS} wirecheck reads: the pages after them were not asked for`,
          };
        }
      }
      return { results, channel, problem: `tools/list still gave a nextCursor after ${MAX_PAGES} pages` };
    });

  const toolList = () =>
    shared('tools', async () => {
      const { results } = await prerequisite('tools/list', toolPages);
      return readTools(results);
    });
  const tools = async () => (await toolList()).tools;

  const unlisted = await unlistedCallTools(target.callTools, toolPages).catch(async (e: unknown) => {
    await close();
    throw e;
  });
  if (unlisted !== undefined) {
    await close();
    throw new UsageError(unlisted);
  }

  return {
    target,
    transport: target.kind,
    offeredVersion,
    negotiatedVersion,
    replyMs,
    firstReplyMs,
    httpMs,
    options,
    serverInfo,
    idle,
    main,
    connect,
    connectRaw,
    openStream,
    openSession,
    spawnStdio,
    openHttp,
    makeRoom,
    openChannels: () => [...channels].filter((c) => c.gone() === undefined),
    tools,
    toolPages: () => prerequisite('tools/list', toolPages),
    policy: () =>
      shared('policy', async () => {
        const list = await toolList();
        const policy = callPolicy(list.tools, serverInfo?.name, target.callTools, list.unread);
        calls.usePolicy(policy);
        return policy;
      }),
    calls,
    shared,
    ownSessions: (id, signal, body) => owners.asCheck(id, signal, body),
    leftovers,
    close,
  };
}

/**
 * Why `--call-tools NAME,...` names a tool the server does not list (call-policy.ts), asked
 * at open so the run stops before any check: exit 2 as a usage error, the --call-tools value
 * being wrong for this server (as an --only entry matching no check is), where a server that
 * cannot do what was asked (--protocol it does not answer) is unavailable. Only a list of
 * names costs the tools/list now; one that fails is left to the checks, which report it, and
 * nothing is judged.
 */
async function unlistedCallTools(
  option: ToolServerTarget['callTools'],
  toolPages: () => Promise<ToolPages>,
): Promise<string | undefined> {
  if (option === undefined || typeof option === 'string') return undefined;
  try {
    return unlistedNamesProblem(await toolPages(), option);
  } catch (e) {
    if (e instanceof CheckFailure || e instanceof CheckSkipped) return undefined;
    throw e;
  }
}

/** False for a Streamable HTTP channel whose initialize was not answered (no session id issued, no version agreed). */
function initializedIfHttp(channel: Channel): boolean {
  if (channel.transport !== 'http') return true;
  const http = channel as StreamableChannel;
  return http.sessionId() !== undefined || http.negotiated() !== undefined;
}

/**
 * The first session: it must be opened and initialized, else the target is unavailable.
 * Returns it initialized (it becomes the main session).
 */
async function preflight(
  target: ToolServerTarget,
  how: {
    replyMs: number;
    httpMs: number;
    open: () => Promise<Channel>;
    started: ServerProcess | undefined;
  },
): Promise<{ channel: Channel; ex: Exchange }> {
  const what = describeTarget(target);
  const stderr = (proc: ServerProcess | undefined) => {
    const block = proc === undefined ? '' : firstLinesBlock('its stderr', proc.stderrTail());
    return block === '' ? '' : `\n${block}`;
  };
  if (target.kind === 'sse') {
    const got = await openGet(
      new URL(target.url),
      { accept: 'text/event-stream' },
      how.httpMs,
      headersToSend(target),
    );
    if ('problem' in got) {
      const refused = got.timedOut ? undefined : await probeCertificate(new URL(target.url), how.httpMs);
      throw new TargetUnavailable(
        refused === undefined
          ? `the stream URL ${redactUrl(target.url)} does not answer: ${got.problem}${stderr(how.started)}`
          : `${certificateWords(redactUrl(target.url), refused)}${stderr(how.started)}`,
      );
    }
    const type = String(got.res.headers['content-type'] ?? '');
    if (got.res.statusCode !== 200 || !type.toLowerCase().startsWith('text/event-stream')) {
      const body = await firstBytes(got.res, 300, 500);
      got.req.destroy();
      throw new TargetUnavailable(
        `GET ${redactUrl(target.url)} (Accept: text/event-stream) answered HTTP ${got.res.statusCode} ${type === '' ? '(no content type)' : type}, not 200 text/event-stream: no SSE session can be opened there${body === '' ? '' : `; body: ${JSON.stringify(body)}`}${streamableHttpHint(got.res.statusCode ?? 0, body)}${stderr(how.started)}`,
      );
    }
    got.req.destroy();
  }
  let channel: Channel;
  try {
    channel = await how.open();
  } catch (e) {
    throw new TargetUnavailable(
      `${what}: ${e instanceof Error ? e.message : String(e)}${stderr(how.started)}`,
    );
  }
  if (channel.transport === 'sse') {
    const sse = channel as SseChannel;
    const deadline = performance.now() + how.httpMs;
    while (sse.endpoint() === undefined && sse.gone() === undefined && performance.now() < deadline)
      await delay(20);
    if (sse.endpoint() === undefined) {
      const frames = JSON.stringify(sse.frameItems().slice(0, 3));
      // The stream may have ended early (a line past the reader's limit, say): that is the why.
      const ended = sse.gone();
      await sse.close();
      const what =
        ended === undefined
          ? `sent no endpoint event within ${how.httpMs} ms`
          : `${ended} before any endpoint event`;
      throw new TargetUnavailable(
        `GET ${redactUrl((target as { url: string }).url)} opened an event stream but ${what} (frames: ${frames}): no POST endpoint to talk to${stderr(how.started)}`,
      );
    }
  }
  const ex = await initializeOrGiveUp(channel, how.replyMs, revisionOf(target));
  if (ex.reply !== undefined && 'result' in ex.reply) {
    const other = otherRevisionAnswered(target, ex);
    if (other === undefined) return { channel, ex };
    await channel.close();
    throw new TargetUnavailable(`${serverNamed(target)} cannot be tested as ${target.protocol}: ${other}`);
  }
  const proc = channel.transport === 'stdio' ? (channel as StdioChannel).process : how.started;
  // Let a dying process finish so its exit status and stderr are complete.
  if (proc !== undefined) await Promise.race([proc.exited, delay(300)]);
  if (channel.transport === 'http') {
    const why = await whyNoStreamableInitialize(channel as StreamableChannel, ex, how.replyMs, how.httpMs);
    await channel.close();
    throw new TargetUnavailable(`${serverNamed(target)} cannot be tested: ${why}${stderr(how.started)}`);
  }
  const why = bodyIsReply(ex.post?.body)
    ? `it answered initialize in the POST response body (${JSON.stringify(ex.post?.body.slice(0, 200))}), not on the event stream as the SSE transport does: is this a Streamable HTTP server?`
    : whyNoInitialize(channel, ex, how.replyMs, channel.transport === 'stdio');
  await channel.close();
  throw new TargetUnavailable(`${serverNamed(target)} cannot be tested: ${why}${stderr(proc)}`);
}

/** The server as a message names it: its command or URL, redacted as reports show the target. */
function serverNamed(target: ToolServerTarget): string {
  return target.kind === 'stdio'
    ? `the server command ${JSON.stringify(redactCommand(target.command))}`
    : `the server at ${redactUrl(target.url)}`;
}

/**
 * Why a server cannot be tested as the revision --protocol names, or undefined: it answered
 * initialize with another version, which MCP lets a server that does not support the requested
 * one do. Every check of that run would judge a session that does not speak the named revision.
 * A date wirecheck does not know is such a version too (a revision published after this
 * wirecheck); a protocolVersion that is no date is left to the checks
 * (initialize.result-shape, initialize.requested-revision): that is a fault, not a choice.
 */
function otherRevisionAnswered(target: ToolServerTarget, ex: Exchange): string | undefined {
  if (target.protocol === undefined) return undefined;
  const v = (ex.reply as { result?: { protocolVersion?: unknown } | null }).result?.protocolVersion;
  if (v === target.protocol) return undefined;
  if (!isProtocolRevision(v)) {
    if (!looksLikeVersion(v)) return undefined;
    return `asked for protocolVersion ${target.protocol} (--protocol), the server answered ${v}, a revision this wirecheck does not know (it speaks ${PROTOCOL_REVISIONS.join(', ')}): it does not speak ${target.protocol}; test it with a --protocol it answers as asked, or with a wirecheck that knows ${v}`;
  }
  const mismatch = transportRevisionMismatch(target.kind, v);
  const advice =
    mismatch === undefined
      ? `test it with --protocol ${v}`
      : `wirecheck cannot test ${v} over --${target.kind}: ${mismatch}`;
  return `asked for protocolVersion ${target.protocol} (--protocol), the server answered ${v}: it does not speak ${target.protocol}; ${advice}`;
}

/**
 * Why a Streamable HTTP endpoint gave no initialize result: it does not answer, answers 404
 * (no endpoint at this URL), another status, a body that is not JSON-RPC, or looks like an
 * HTTP+SSE server's stream URL.
 */
async function whyNoStreamableInitialize(
  channel: StreamableChannel,
  ex: Exchange,
  budgetMs: number,
  /** Budget of the handshake that tells a refused certificate from a server that is not there. */
  handshakeMs: number,
): Promise<string> {
  const post = channel.posts[0];
  const body = post === undefined ? '' : post.body.slice(0, 200);
  const shown = body === '' ? '' : `; body: ${JSON.stringify(body)}`;
  if (post?.status === undefined) {
    // The POST's error keeps only Node's words: a handshake of its own tells a refused certificate.
    const refused = await probeCertificate(channel.url, handshakeMs);
    if (refused !== undefined) return certificateWords(redactUrl(channel.url.href), refused);
    return `the POST of initialize got no HTTP answer (${post?.problem ?? ex.why ?? 'no response'})`;
  }
  if (post.status === 405 || (post.status >= 400 && /endpoint|sessionId|\/sse\b/i.test(body))) {
    return `the POST of initialize was answered HTTP ${post.status}${shown}: is this an HTTP+SSE server (then use --sse with its stream URL)?`;
  }
  if (post.status === 404) {
    return `the POST of initialize was answered HTTP 404: there is no MCP endpoint at this URL${shown}`;
  }
  if (post.status >= 300) return `the POST of initialize was answered HTTP ${post.status}${shown}`;
  if (ex.reply !== undefined && 'error' in ex.reply) {
    return `it answered initialize (protocolVersion ${channel.protocolVersion}) with an error: ${JSON.stringify(ex.reply).slice(0, 300)}; nothing else can be tested`;
  }
  if (post.messages.length === 0) {
    // The wait's own reason says what came instead: a body cut at its limit, nesting too deep, nothing in time.
    const why = ex.why ?? `none within ${budgetMs} ms`;
    return `the POST of initialize was answered HTTP ${post.status} ${post.headers['content-type'] ?? '(no content type)'} with no JSON-RPC message (${why})${shown}: is this an MCP Streamable HTTP endpoint?`;
  }
  return `it did not answer initialize with a result within ${budgetMs} ms (got ${JSON.stringify(post.messages.slice(0, 2)).slice(0, 300)})`;
}

/**
 * initialize, but stop waiting as soon as the server has shown it does not speak the
 * protocol (our request echoed back, a run of lines that are not JSON-RPC): a flood or an
 * echo would otherwise cost the whole reply budget and memory.
 */
async function initializeOrGiveUp(channel: Channel, ms: number, version: string): Promise<Exchange> {
  let stop = false;
  const watch = (async (): Promise<Exchange | undefined> => {
    while (!stop) {
      await delay(10);
      if (speaksNoProtocol(channel)) {
        return { id: 0, reply: undefined, why: 'the server does not speak the protocol', post: undefined };
      }
    }
    return undefined;
  })();
  const answer = initialize(channel, ms, version);
  const first = await Promise.race([answer, watch]);
  stop = true;
  return first ?? (await answer);
}

/** Lines that are not JSON-RPC, before any reply, enough to tell; or our initialize echoed back. */
const NOT_PROTOCOL_LINES = 20;

function speaksNoProtocol(channel: Channel): boolean {
  let bad = 0;
  for (const item of channel.peer.items) {
    if (item.direction !== 'received') continue;
    if (item.kind === 'success' || item.kind === 'error') return false;
    if (item.kind === 'not-json' || item.kind === 'invalid') bad += 1;
    if (item.kind === 'request' && item.text.includes('"initialize"')) return true;
    if (bad >= NOT_PROTOCOL_LINES) return true;
  }
  return false;
}

/** Whether a POST response body is itself a JSON-RPC reply (a Streamable HTTP server answers so). */
function bodyIsReply(body: string | undefined): boolean {
  if (body === undefined) return false;
  try {
    const v = JSON.parse(body) as { jsonrpc?: unknown; result?: unknown; error?: unknown };
    return v.jsonrpc === '2.0' && ('result' in v || 'error' in v);
  } catch {
    return false;
  }
}

/** Up to `max` bytes of a response body, waiting at most `ms`. */
function firstBytes(res: import('node:http').IncomingMessage, max: number, ms: number): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    const done = () => {
      clearTimeout(timer);
      res.removeAllListeners('data');
      resolve(text.slice(0, max));
    };
    const timer = setTimeout(done, ms);
    res.on('data', (c: Buffer) => {
      text += c.toString('utf8');
      if (text.length >= max) done();
    });
    res.on('end', done);
    res.on('error', done);
  });
}

/** Poll the stream URL until it answers (any HTTP status), the process exits, or the budget ends. */
async function waitUntilAnswers(
  url: string,
  proc: ServerProcess,
  ms: number,
  targetHeaders: TargetHeaders | undefined,
): Promise<string | undefined> {
  const deadline = performance.now() + ms;
  let last = '';
  while (performance.now() < deadline) {
    if (proc.exit() !== undefined) {
      await delay(50);
      const block = firstLinesBlock('its stderr', proc.stderrTail());
      return `the --start command exited (${describeExit(proc).split(' (stderr')[0]}) before ${redactUrl(url)} answered${block === '' ? '' : `\n${block}`}`;
    }
    const got = await openGet(new URL(url), { accept: 'text/event-stream' }, 1000, targetHeaders);
    if (!('problem' in got)) {
      got.req.destroy();
      return undefined;
    }
    // A certificate refused is a server that answered: the preflight says what TLS refused.
    if (!got.timedOut && (await probeCertificate(new URL(url), 1000)) !== undefined) return undefined;
    last = got.problem;
    await delay(100);
  }
  await proc.kill();
  const block = firstLinesBlock('its stderr', proc.stderrTail());
  return `${redactUrl(url)} did not answer within ${ms} ms of the --start command (last: ${last}); ${SLOW_START_HINT}${block === '' ? '' : `\n${block}`}`;
}
