import { CheckFailure, CheckSkipped, TargetUnavailable } from '../../harness/check.js';
import { type Tool, ToolsListResult } from '../../protocol/mcp/index.js';
import type { Channel } from './channel.js';
import { rpcEvidence } from './evidence.js';
import { openGet } from './http.js';
import { describeExit, type ServerProcess, spawnServer } from './process.js';
import { callOk, delay, initialize } from './rpc.js';
import { openSseChannel, type SseChannel, SseOpenError } from './sse-channel.js';
import { openStdioChannel, type StdioChannel } from './stdio-channel.js';
import type { ToolServerTarget } from './target.js';

/** Tuning of the suite itself (not of the target). */
export interface ToolServerSuiteOptions {
  /** Budget for one reply (default 5000 ms). */
  readonly replyMs?: number;
  /** Budget for a POST's response, and for a stream's headers and first event (default 3000 ms, the probe's capture). */
  readonly httpMs?: number;
  /** Budget for `--start` until the stream URL answers (default 15000 ms). */
  readonly startMs?: number;
  /** Cap on tools/call runs of the generated-arguments property, quick tier (default 40) and --full (default 400). */
  readonly maxCalls?: number;
  readonly maxFullCalls?: number;
  /** fast-check runs of the session model, quick tier (default 5: 5 x 10 sessions) and --full (default 20). */
  readonly modelRuns?: number;
  readonly maxFullModelRuns?: number;
}

export interface ToolServerCtx {
  readonly target: ToolServerTarget;
  readonly transport: 'stdio' | 'sse';
  readonly replyMs: number;
  readonly httpMs: number;
  readonly options: ToolServerSuiteOptions;
  /** The shared initialized session; replaced by a new one when a check left it dead. */
  main(): Promise<Channel>;
  /** A new initialized session (stdio: a new process; sse: a new stream). Closed with the ctx at the latest. */
  connect(label: string): Promise<Channel>;
  /** A new session that is not initialized. */
  connectRaw(label: string): Promise<Channel>;
  /** SSE only (CheckSkipped on stdio): a new raw stream, not initialized. */
  openStream(label: string): Promise<SseChannel>;
  /** SSE only: a new stream whose endpoint event came; initialized when `init`. */
  openSession(label: string, init: boolean): Promise<SseChannel>;
  /** stdio only (CheckSkipped on sse): a new process, not initialized. */
  spawnStdio(label: string): StdioChannel;
  /** Every session the suite holds open now (a reply misrouted to any of them shows as a stray there). */
  openChannels(): Channel[];
  /** tools/list of the main session, asked once per run. */
  tools(): Promise<Tool[]>;
  /** A value computed once per run and shared by the checks that judge it. */
  shared<T>(key: string, make: () => Promise<T>): Promise<T>;
}

/**
 * Open the suite: start the server when `--start` asks, and probe the target once. A
 * command that cannot start or a URL that does not answer makes the target unavailable
 * (exit 2); a server that answers but breaks the protocol is left to the checks.
 */
export async function openToolServer(
  target: ToolServerTarget,
  options: ToolServerSuiteOptions = {},
): Promise<ToolServerCtx & { close(): Promise<void> }> {
  const replyMs = options.replyMs ?? 5000;
  const httpMs = options.httpMs ?? 3000;
  const channels = new Set<Channel>();
  let started: ServerProcess | undefined;
  const memo = new Map<string, Promise<unknown>>();
  let sessions = 0;

  const close = async () => {
    await Promise.all([...channels].map((c) => c.close()));
    channels.clear();
    await started?.kill();
  };

  const track = <C extends Channel>(c: C): C => {
    channels.add(c);
    const original = c.close.bind(c);
    // A channel closed by a check leaves the registry, so a long run does not accumulate them.
    (c as { close: () => Promise<void> }).close = async () => {
      channels.delete(c);
      await original();
    };
    return c;
  };

  const spawnStdio = (label: string): StdioChannel => {
    if (target.kind !== 'stdio') throw new CheckSkipped('this check applies to the stdio transport only');
    return track(openStdioChannel(target.command, label));
  };

  const openStream = async (label: string): Promise<SseChannel> => {
    if (target.kind !== 'sse') throw new CheckSkipped('this check applies to the SSE transport only');
    try {
      return track(await openSseChannel(target.url, { label, timeoutMs: httpMs, postTimeoutMs: httpMs }));
    } catch (e) {
      if (e instanceof SseOpenError)
        throw new CheckFailure(e.message, 'HTTP 200 and an event stream', 'no stream');
      throw e;
    }
  };

  const openSession = async (label: string, init: boolean): Promise<SseChannel> => {
    const channel = await openStream(label);
    await channel.firstEvent(httpMs);
    if (channel.endpoint() === undefined) {
      await channel.close();
      throw new CheckFailure(
        `GET ${target.kind === 'sse' ? target.url : ''} gave no usable endpoint event within ${httpMs} ms (HTTP ${channel.status})`,
        'a first event `endpoint` whose data is the POST path with a sessionId',
        JSON.stringify(channel.frameItems().slice(0, 5)),
      );
    }
    if (init) await mustInitialize(channel);
    return channel;
  };

  const mustInitialize = async (channel: Channel) => {
    const ex = await initialize(channel, replyMs);
    if (ex.reply === undefined || !('result' in ex.reply)) {
      throw new CheckFailure(
        `initialize on ${channel.peer.label} was not answered with a result: ${ex.why ?? JSON.stringify(ex.reply)}`,
        'an initialize result',
        ex.reply === undefined ? 'nothing' : JSON.stringify(ex.reply),
        rpcEvidence(`initialize on ${channel.peer.label}`, [channel]),
      );
    }
  };

  const connectRaw = async (label: string): Promise<Channel> =>
    target.kind === 'stdio' ? spawnStdio(label) : openSession(label, false);

  const connect = async (label: string): Promise<Channel> => {
    const channel = await connectRaw(label);
    await mustInitialize(channel);
    return channel;
  };

  let mainChannel: Promise<Channel> | undefined;
  const main = async (): Promise<Channel> => {
    if (mainChannel !== undefined) {
      const current = await mainChannel.catch(() => undefined);
      if (current !== undefined && current.gone() === undefined) return current;
      await current?.close();
    }
    sessions += 1;
    mainChannel = connect(sessions === 1 ? 'main' : `main-${sessions}`);
    return mainChannel;
  };

  if (target.kind === 'sse' && target.start !== undefined) {
    started = spawnServer(target.start);
    const problem = await waitUntilAnswers(target.url, started, options.startMs ?? 15_000);
    if (problem !== undefined) {
      await close();
      throw new TargetUnavailable(problem);
    }
  } else if (target.kind === 'sse') {
    const got = await openGet(new URL(target.url), { accept: 'text/event-stream' }, httpMs);
    if ('problem' in got)
      throw new TargetUnavailable(`the stream URL ${target.url} does not answer: ${got.problem}`);
    got.req.destroy();
  } else {
    // A command that cannot be started at all (sh: not found) exits at once with 126/127.
    const probe = spawnStdio('probe');
    await Promise.race([probe.process.exited, delay(300)]);
    const exit = probe.process.exit();
    await probe.close();
    if (exit !== undefined && (exit.code === 126 || exit.code === 127)) {
      throw new TargetUnavailable(
        `the server command ${JSON.stringify(target.command)} ${describeExit(probe.process)}`,
      );
    }
  }

  const shared = <T>(key: string, make: () => Promise<T>): Promise<T> => {
    let promise = memo.get(key) as Promise<T> | undefined;
    if (promise === undefined) {
      promise = make();
      memo.set(key, promise);
    }
    return promise;
  };

  return {
    target,
    transport: target.kind,
    replyMs,
    httpMs,
    options,
    main,
    connect,
    connectRaw,
    openStream,
    openSession,
    spawnStdio,
    openChannels: () => [...channels].filter((c) => c.gone() === undefined),
    tools: () =>
      shared('tools', async () => {
        const channel = await main();
        const reply = await callOk(channel, 'tools/list', {}, replyMs);
        const parsed = ToolsListResult.safeParse(reply.result);
        // The shape is the list check's business; other checks use whatever tools parse.
        if (parsed.success) return parsed.data.tools;
        const raw = (reply.result as { tools?: unknown }).tools;
        return Array.isArray(raw)
          ? raw.filter((t): t is Tool => typeof t === 'object' && t !== null && typeof t.name === 'string')
          : [];
      }),
    shared,
    close,
  };
}

/** Poll the stream URL until it answers (any HTTP status), the process exits, or the budget ends. */
async function waitUntilAnswers(url: string, proc: ServerProcess, ms: number): Promise<string | undefined> {
  const deadline = performance.now() + ms;
  let last = '';
  while (performance.now() < deadline) {
    if (proc.exit() !== undefined) return `the --start command ${describeExit(proc)} before ${url} answered`;
    const got = await openGet(new URL(url), { accept: 'text/event-stream' }, 1000);
    if (!('problem' in got)) {
      got.req.destroy();
      return undefined;
    }
    last = got.problem;
    await delay(100);
  }
  await proc.kill();
  return `${url} did not answer within ${ms} ms of the --start command (last: ${last}; the command ${describeExit(proc)})`;
}
