import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { type CheckEnv, NotExercised, TargetUnavailable } from '../../harness/check.js';
import { LeftoverLedger } from '../../harness/containment/index.js';
import { UsageError } from '../../harness/errors.js';
import { firstContact } from '../../harness/first-contact.js';
import { firstLines } from '../../harness/output-lines.js';
import { type CommandRun, runCommand } from '../../harness/run-command.js';
import { SharedWork } from '../../harness/shared-work.js';
import { removeWorkDir, withLeftover } from '../../harness/work-dir.js';
import { DEFAULT_JOURNAL_LIMITS } from '../../mocks/limits.js';
import {
  followJournalFile,
  mockToolServerCommand,
  startMockToolServer,
  startStreamableHttpMockToolServer,
  type ToolJournal,
  type ToolJournalEntry,
  type ToolScenario,
  type ToolScenarioInput,
  toolScenario,
} from '../../mocks/tools/index.js';
import { findPerl, type StdioRelayHost, startStdioRelayHost } from '../../mocks/tools/stdio-relay.js';
import { CLIENT_SLOW_START_HINT } from '../target-options.js';
import { quotedCommand } from '../target-secrets.js';
import { classifyToolClientRun, describeToolClientRun, type ToolClientOutcome } from './output.js';
import {
  CASE_TIMEOUT_MS,
  revisionMismatchOf,
  revisionOf,
  type ToolClientTarget,
  type ToolTransport,
  toolClientEnv,
  transportsOf,
} from './target.js';

/** Tuning of the suite itself (not of the target). */
export interface ToolClientSuiteOptions {
  /** Cap on fast-check runs of a property that runs the client once per run, quick tier (default 8). */
  readonly maxCommandRuns?: number;
  /** The same cap with --full (default 60). */
  readonly maxFullCommandRuns?: number;
  /** Budget of one client run (default 15 s). */
  readonly caseTimeoutMs?: number;
  /** Environment the client's own is built from (default process.env). */
  readonly baseEnv?: Readonly<Record<string, string | undefined>>;
  /**
   * How a stdio case's mock runs: `relay` (default where perl is found) in the harness,
   * reached through a small perl relay the client starts (stdio-relay.ts); `process`, as a
   * Node.js process of its own (stdio-process.ts), which costs a case about ten times the CPU
   * to start.
   */
  readonly stdioMock?: 'relay' | 'process';
}

/** How long after its client ended a relayed stdio session may take to report its end. */
const RELAY_END_WAIT_MS = 2_000;

/** What goes on the client's stdin. */
export interface ToolCallInput {
  readonly tool: string;
  readonly arguments?: Record<string, unknown>;
}

/** One run of the client against a fresh mock tool server. */
export interface CaseSpec {
  readonly transport: ToolTransport;
  readonly scenario: ToolScenarioInput;
  readonly input: ToolCallInput;
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

export interface CaseResult {
  readonly transport: ToolTransport;
  readonly scenario: ToolScenario;
  readonly input: ToolCallInput;
  readonly run: CommandRun;
  readonly outcome: ToolClientOutcome;
  /** Everything the mock received and sent, in order. */
  readonly journal: readonly ToolJournalEntry[];
  /**
   * Set when wirecheck stopped the client for flooding the mock: MAX_CASE_MESSAGES messages or
   * (relayed stdio, SSE and http) a journal half full, in bytes or in entries. The messages it
   * had sent by then.
   */
  readonly stoppedAfterMessages?: number;
  /**
   * Entries the mock's journal forgot past its limits (JournalLimits), its oldest first, when it
   * forgot any: `journal` then lacks the case's start, and no check judges it (wholeJournal).
   */
  readonly journalDropped?: number;
}

/**
 * Messages after which a case's client is stopped: fifty times what the busiest case needs
 * (initialize, initialized, the call, a few pings and lists), so only a client that floods
 * the mock meets it. It bounds the case's time, and keeps its journal whole: the checks judge
 * a case from its first message on, and a mock's journal in memory forgets its oldest entries
 * past its limits, so the client is also stopped once the journal reaches half its byte limit
 * or half its entry limit (halfFull: every entry counts there, a GET or a stream opened as well
 * as a message, so a flood of requests that carry no message is stopped too; the journal file
 * of a stdio mock process keeps the first 64 MiB; the harness counts from it, reading it every
 * 100 ms).
 */
export const MAX_CASE_MESSAGES = 1000;

/**
 * Counts the client messages a case's mock journals (`see`) and stops the case's run (through
 * `signal`, which the case's own signal also aborts) at MAX_CASE_MESSAGES, or once `full` says
 * the journal would start forgetting; `stopped` is what the case's result says of it.
 * `upToStop` keeps a stdio journal to the entry that stopped the case: what follows (the end
 * of stdin the kill brings about) is wirecheck's doing, not the client's, and arrives sooner or
 * later depending on how the mock runs.
 */
function floodGuard(caseSignal: AbortSignal | undefined, full: () => boolean = () => false) {
  const flood = new AbortController();
  let received = 0;
  let lastSeq = Number.POSITIVE_INFINITY;
  const contact = firstContact();
  return {
    signal: caseSignal === undefined ? flood.signal : AbortSignal.any([caseSignal, flood.signal]),
    /** Settles at the first thing the mock journals of the client: its start-up is over. */
    contact: contact.reached,
    see(entry: ToolJournalEntry): void {
      contact.mark();
      if (flood.signal.aborted) return;
      if (entry.direction === 'received' && entry.kind === 'message') received += messagesIn(entry);
      if (received >= MAX_CASE_MESSAGES || full()) {
        lastSeq = entry.seq;
        flood.abort();
      }
    },
    stopped: (): { stoppedAfterMessages?: number } =>
      flood.signal.aborted ? { stoppedAfterMessages: received } : {},
    upToStop: (entries: ToolJournalEntry[]): ToolJournalEntry[] =>
      entries.filter((entry) => entry.seq <= lastSeq),
  };
}

/**
 * The messages one received entry carries: each of a batch's (a batch of thousands is as much a
 * flood as thousands of messages one by one), else one.
 */
function messagesIn(entry: ToolJournalEntry): number {
  return Array.isArray(entry.value) ? Math.max(1, entry.value.length) : 1;
}

/**
 * The journal holds half of what it keeps, in bytes or in entries (of every kind, sent and
 * received): its client is stopped there, while its oldest entries are still kept, with room
 * for what the client had in flight when it was stopped.
 */
function halfFull(journal: ToolJournal): boolean {
  return journal.totalBytes * 2 >= journal.bounds.totalBytes || journal.size * 2 >= journal.bounds.entries;
}

/** The default tool a case calls: echo with a few arguments. */
export const ECHO_INPUT: ToolCallInput = {
  tool: 'echo',
  arguments: { text: 'hello 👋', count: 3, nested: { ok: true } },
};

/** Cases several checks judge, run once per suite run (lazily), per transport. */
/**
 * Cases several checks judge, each run once per suite run. A check that asks while another
 * runs the case waits without its job slot (`asker.idle`, SharedWork).
 */
export interface SharedCases {
  /** The default scenario and input: a clean session (run by the preflight, for every transport). */
  basic(transport: ToolTransport, asker?: SharedAsker): Promise<CaseResult>;
  /** The mock pings the client before answering tools/call. */
  ping(transport: ToolTransport, asker?: SharedAsker): Promise<CaseResult>;
  /** Every reply takes a second and a half (SLOW_REPLY_MS). */
  slow(transport: ToolTransport, asker?: SharedAsker): Promise<CaseResult>;
  /** stdio: the mock writes NON_JSON_BANNER on stdout just before the tools/call reply. */
  nonJsonStdout(asker?: SharedAsker): Promise<CaseResult>;
}

type SharedAsker = Pick<CheckEnv, 'idle'>;

/** The line that is not JSON, for the stdio-hygiene case. */
/**
 * How long the mock takes to send each reply in the slow case (`shared.slow`): clearly past one
 * second, the timeout the rule names. A delay equal to a client's own timeout (@ai-sdk/mcp gives
 * its first request 1000 ms) is a race between two timers, and the verdict would move with load.
 */
export const SLOW_REPLY_MS = 1500;

/** What the slow case waits out against a conforming client: its replies to initialize and tools/call. */
export const SLOW_CASE_WAIT_MS = 2 * SLOW_REPLY_MS;

export const NON_JSON_BANNER = 'wirecheck mock tool server: this banner line is not JSON';

export interface ToolClientCtx {
  readonly target: ToolClientTarget;
  /** fast-check runs of a command-spawning property in this tier. */
  commandRuns(env: { runs: number; full: boolean }): number;
  runCase(spec: CaseSpec): Promise<CaseResult>;
  readonly shared: SharedCases;
  /** What every run of the client command left running when it ended (tool-client.processes.none-left). */
  readonly leftovers: LeftoverLedger;
}

/**
 * Per case: a fresh mock (stdio: a session of the relay host, whose relay command the client
 * starts, or without perl a scenario file and the mock process that serves it, journaling to
 * a file the harness reads; sse and http: a mock listening on 127.0.0.1),
 * then the client command. Cases may run concurrently. The first case is a probe: a command
 * that cannot be started at all makes the target unavailable.
 */
export async function openToolClient(
  target: ToolClientTarget,
  seed: number,
  options: ToolClientSuiteOptions = {},
  /** Told the secret values the client sends a mock (credential headers): the reports must hide them. */
  learnSecrets: (secrets: readonly string[]) => void = () => {},
): Promise<ToolClientCtx & { close(): Promise<string | undefined> }> {
  const mismatch = revisionMismatchOf(target);
  if (mismatch !== undefined) throw new UsageError(mismatch);
  const dir = await mkdtemp(join(tmpdir(), 'wirecheck-tool-client-'));
  const baseEnv = options.baseEnv ?? process.env;
  const caseTimeoutMs = options.caseTimeoutMs ?? CASE_TIMEOUT_MS;
  let counter = 0;
  const leftovers = new LeftoverLedger();
  const relay: StdioRelayHost | undefined =
    options.stdioMock === 'process' ? undefined : await startStdioRelayHost(dir, findPerl());

  const runOne = async (spec: CaseSpec): Promise<CaseResult> => {
    const n = counter++;
    const scenario = toolScenario({
      seed,
      protocolVersion: revisionOf(target, spec.transport),
      ...spec.scenario,
    });
    // The client's run against the case's mock, stopped early through `signal` (floodGuard).
    // The case's budget counts from the client's first contact with the mock, not its start-up.
    const runClient = (flood: ReturnType<typeof floodGuard>, env: Parameters<typeof toolClientEnv>[1]) =>
      leftovers.track(
        `run ${n + 1} of the client (${spec.transport})`,
        runCommand(target.client, {
          stdin: JSON.stringify(spec.input),
          timeoutMs: spec.timeoutMs ?? caseTimeoutMs,
          restartTimeoutOn: flood.contact,
          ...(target.startTimeoutMs === undefined ? {} : { startTimeoutMs: target.startTimeoutMs }),
          graceMs: 1000,
          signal: flood.signal,
          env: toolClientEnv(baseEnv, env),
        }),
      );
    const resultOf = (
      run: CommandRun,
      journal: readonly ToolJournalEntry[],
      flood: ReturnType<typeof floodGuard>,
      dropped = 0,
    ): CaseResult => ({
      transport: spec.transport,
      scenario,
      input: spec.input,
      run,
      outcome: classifyToolClientRun(run),
      journal,
      ...flood.stopped(),
      ...(dropped > 0 ? { journalDropped: dropped } : {}),
    });
    if (spec.transport === 'stdio' && relay !== undefined) {
      const session = relay.session(scenario);
      // This journal forgets its oldest entries past its limits: the client is stopped before.
      const flood = floodGuard(spec.signal, () => halfFull(session.journal));
      const unwatch = session.journal.subscribe((entry) => flood.see(entry));
      const unlearn = session.journal.subscribeSecrets(learnSecrets);
      try {
        const run = await runClient(flood, { transport: 'stdio', command: session.command });
        // The client and everything it started are gone: the relay's last frames are on their way.
        await Promise.race([session.idle(), delay(RELAY_END_WAIT_MS, undefined, { ref: false })]);
        return resultOf(run, flood.upToStop(session.journal.entries()), flood, session.journal.dropped);
      } finally {
        unwatch();
        unlearn();
        session.stop();
      }
    }
    if (spec.transport === 'stdio') {
      const scenarioFile = join(dir, `case-${n}.scenario.json`);
      const journalFile = join(dir, `case-${n}.journal.jsonl`);
      await writeFile(scenarioFile, JSON.stringify(scenario));
      // `exec`: sh -c becomes the mock itself, so a client's signal reaches the mock (the
      // shutdown-order check reads it from the journal).
      const command = `exec ${mockToolServerCommand({ scenarioFile, journalFile, launcher: 'direct' })}`;
      const flood = floodGuard(spec.signal);
      const unfollow = followJournalFile(journalFile, (entry) => flood.see(entry));
      let run: CommandRun;
      let journal: ToolJournalEntry[];
      try {
        run = await runClient(flood, { transport: 'stdio', command });
      } finally {
        journal = flood.upToStop(await unfollow());
      }
      return resultOf(run, journal, flood);
    }
    const transport = spec.transport;
    const mock = await (transport === 'http' ? startStreamableHttpMockToolServer : startMockToolServer)(
      scenario,
    );
    // This journal forgets its oldest entries past its limits: the client is stopped before.
    const flood = floodGuard(spec.signal, () => halfFull(mock.live));
    const unwatch = mock.live.subscribe((entry) => flood.see(entry));
    const unlearn = mock.live.subscribeSecrets(learnSecrets);
    try {
      const run = await runClient(flood, { transport, url: mock.url });
      unwatch();
      return resultOf(run, mock.journal(), flood, mock.live.dropped);
    } finally {
      unwatch();
      unlearn();
      await mock.close();
    }
  };

  /** How long a case's client may take to first reach its mock (runCommand's budget until the first contact). */
  const startBudgetMs = (spec: Pick<CaseSpec, 'timeoutMs'>) =>
    Math.max(spec.timeoutMs ?? caseTimeoutMs, target.startTimeoutMs ?? 0);

  // Every case has its own mock and files: cases may run concurrently (--jobs).
  const runCase = async (spec: CaseSpec) =>
    wholeJournal(startedInTime(await runOne(spec), startBudgetMs(spec)));

  // The shared cases keep what their runs saw, the preflight reads it as it is; a check that
  // asks for one whose client never started in time is not exercised.
  const cases = new SharedWork();
  const sharedRun = (
    key: string,
    spec: Omit<CaseSpec, 'transport'>,
    transport: ToolTransport,
    asker?: SharedAsker,
  ) => cases.get(`${key} ${transport}`, () => runOne({ transport, ...spec }), asker);
  const basicRun = (transport: ToolTransport, asker?: SharedAsker) =>
    sharedRun('basic', { scenario: {}, input: ECHO_INPUT }, transport, asker);
  const judged = (run: Promise<CaseResult>) =>
    run.then((r) => wholeJournal(startedInTime(r, startBudgetMs({}))));
  const shared: SharedCases = {
    basic: (transport, asker) => judged(basicRun(transport, asker)),
    ping: (transport, asker) =>
      judged(
        sharedRun('ping', { scenario: { faults: { pingFirst: true } }, input: ECHO_INPUT }, transport, asker),
      ),
    slow: (transport, asker) =>
      judged(
        sharedRun(
          'slow',
          { scenario: { faults: { replyDelayMs: SLOW_REPLY_MS } }, input: ECHO_INPUT },
          transport,
          asker,
        ),
      ),
    nonJsonStdout: (asker) =>
      judged(
        sharedRun(
          'non-json-stdout',
          { scenario: { faults: { nonJsonStdout: NON_JSON_BANNER } }, input: ECHO_INPUT },
          'stdio',
          asker,
        ),
      ),
  };

  const close = async () => {
    await relay?.close();
    return removeWorkDir(dir);
  };
  try {
    // Preflight: the client must reach the mock over at least one transport (a command
    // that cannot start, or never connects, is unavailable: nothing can be judged).
    const probes = await Promise.all(transportsOf(target).map((transport) => basicRun(transport)));
    const problem = startProblem(probes[0]!.run) ?? (probes.some(reached) ? undefined : neverReached(probes));
    if (problem !== undefined) {
      throw new TargetUnavailable(`the client command ${quotedCommand(target.client)} ${problem}`);
    }
  } catch (e) {
    const left = await close();
    if (e instanceof TargetUnavailable && left !== undefined) {
      throw new TargetUnavailable(withLeftover(e.message, left), { cause: e.cause });
    }
    throw e;
  }

  return {
    target,
    commandRuns: (env) =>
      Math.max(
        1,
        Math.min(env.runs, env.full ? (options.maxFullCommandRuns ?? 60) : (options.maxCommandRuns ?? 8)),
      ),
    runCase,
    shared,
    leftovers,
    close,
  };
}

/**
 * The case's client reached the mock: a message, or (SSE) a stream opened; or its journal
 * forgot entries, which only what a client sent can fill (the received ones may all be gone).
 */
export function reached(result: Pick<CaseResult, 'journal' | 'journalDropped'>): boolean {
  return (result.journalDropped ?? 0) > 0 || result.journal.some((e) => e.direction === 'received');
}

/**
 * `result`, unless its journal forgot its oldest entries: the client is stopped well before
 * (floodGuard), so only what it had in flight then can have pushed them out. The journal then
 * starts mid-session, where initialize and everything before look missing: no rule can be judged
 * from it, kept or broken. A flood the guard stopped in time is judged as it is (its journal whole).
 */
export function wholeJournal(result: CaseResult): CaseResult {
  const dropped = result.journalDropped ?? 0;
  if (dropped === 0) return result;
  const flood =
    result.stoppedAfterMessages === undefined
      ? ''
      : ` wirecheck stopped the client after ${result.stoppedAfterMessages} messages, but what it had sent by then still overflowed the journal;`;
  throw new NotExercised(
    `the ${result.transport} mock's journal forgot the case's first ${dropped} entries (it keeps at most ${DEFAULT_JOURNAL_LIMITS.entries} entries and ${DEFAULT_JOURNAL_LIMITS.totalBytes / (1024 * 1024)} MiB):${flood} the case's start (initialize and what came before the flood) is gone, so nothing of it can be judged (${describeToolClientRun(result.run)})`,
  );
}

/**
 * `result`, unless its client was stopped at the end of its budget before it ever reached the
 * mock: its start-up took the whole budget (on a loaded machine, or an interpreter slow to
 * start), and nothing it did can be judged, a rule broken no more than kept. The preflight
 * makes a client that reaches no mock at all unavailable; this is one case of a client that did.
 */
function startedInTime(result: CaseResult, budgetMs: number): CaseResult {
  if (!result.run.timedOut || reached(result)) return result;
  throw new NotExercised(
    `the client did not reach the ${result.transport} mock (no message on stdio, no stream opened over SSE, no request over Streamable HTTP) within ${budgetMs / 1000} s of its start, the case's budget until the first contact, and was stopped (${describeToolClientRun(result.run)}): nothing of the case was seen to judge; ${CLIENT_SLOW_START_HINT}`,
  );
}

/** What the probes saw of a client that reached neither mock. */
function neverReached(probes: readonly CaseResult[]): string {
  const lines = probes.map((p) => {
    const out = p.run.stdout.trim();
    const err = firstLines(p.run.stderr, 6).join('\n');
    return `over ${p.transport}: ${describeToolClientRun(p.run).split('; stderr')[0] ?? ''}${out === '' ? ', nothing on stdout' : `, stdout ${JSON.stringify(out.slice(0, 200))}`}${err === '' ? '' : `\n  first lines of its stderr:\n  ${err.split('\n').join('\n  ')}`}`;
  });
  const hint = probes.some((p) => p.run.timedOut) ? `\n${CLIENT_SLOW_START_HINT}` : '';
  return `never reached the mock tool server (no message on stdio, no stream opened over SSE, no request over Streamable HTTP), so nothing can be judged:\n${lines.join('\n')}${hint}`;
}

/** Why a probe run shows the command cannot be started at all; undefined when it ran. */
function startProblem(run: CommandRun): string | undefined {
  if (run.spawnError) return `could not be started: ${run.spawnError.message}`;
  // sh's own statuses: 126 found but not executable, 127 not found.
  if ((run.exitCode === 126 || run.exitCode === 127) && run.stdout.trim() === '') {
    return `could not be started by sh -c (${describeToolClientRun(run)})`;
  }
  return undefined;
}
