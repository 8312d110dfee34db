import { type CheckEnv, NotExercised, TargetGone, TargetUnavailable } from '../../harness/check.js';
import { LeftoverLedger } from '../../harness/containment/index.js';
import { firstContact } from '../../harness/first-contact.js';
import { firstLinesBlock, outputPart } from '../../harness/output-lines.js';
import { NoRefusedPortError, refusedLoopbackPort } from '../../harness/refused-address.js';
import { type CommandRun, runCommand } from '../../harness/run-command.js';
import { SharedWork } from '../../harness/shared-work.js';
import {
  atOtherApiOperation,
  type JournalEntry,
  type MockMessagesService,
  type Reply,
  type Scenario,
  startMockMessagesService,
} from '../../mocks/messages/index.js';
import type { Message, MessageRequest } from '../../protocol/messages/index.js';
import { watchScenario } from '../messages-mock-failures.js';
import { CLIENT_SLOW_START_HINT } from '../target-options.js';
import { quotedCommand } from '../target-secrets.js';
import { judgeOf, refusalIn } from './expect.js';
import { type ClientOutcome, classifyRun } from './output.js';
import { type ReadCutPlan, readCutsOf } from './read-cuts.js';
import { startReadSplittingRelay } from './relay.js';
import { plainRequest, requestFor, richRequest } from './requests.js';
import { CASE_TIMEOUT_MS, clientEnv, type MessagesClientTarget, runApiKey } from './target.js';

/** Tuning of the suite itself (not of the target). */
export interface MessagesClientSuiteOptions {
  /** Cap on fast-check runs of a property that runs the client once per run, quick tier (default 15). */
  readonly maxCommandRuns?: number;
  /** The same cap with --full (default 100). */
  readonly maxFullCommandRuns?: number;
  /** Budget of one client run (default 20 s: enough for a client that retries with backoff). */
  readonly caseTimeoutMs?: number;
  /** Environment the client's own is built from (default process.env). */
  readonly baseEnv?: Readonly<Record<string, string | undefined>>;
}

/** One run of the client: what the mock serves, what goes on stdin, how the client is pointed. */
export interface CaseSpec {
  /** Decides the reply to every request of this case (see `always`, `script`). */
  readonly scenario: Scenario;
  /** The request body written to stdin. */
  readonly body: MessageRequest;
  /** false: both key variables are left unset (default true). */
  readonly withKey?: boolean;
  /** Point the client elsewhere than the mock (a refused port). */
  readonly baseUrl?: string;
  /** Deliver the response through a relay that cuts it into separate reads (see relay.ts). */
  readonly readCuts?: ReadCutPlan;
  /** Budget of this run (default: the suite's caseTimeoutMs). */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

export interface CaseResult {
  readonly run: CommandRun;
  readonly outcome: ClientOutcome;
  /**
   * The requests the mock received during the run, in arrival order, but for those to the
   * real API's other operations (`otherOperations`): the checks judge the messages requests.
   */
  readonly requests: readonly JournalEntry[];
  /** Requests to another operation of the real API (count_tokens, models...): not judged. */
  readonly otherOperations: readonly JournalEntry[];
  /** Set when wirecheck stopped the client for sending MAX_CASE_REQUESTS requests in the case. */
  readonly stoppedAfterRequests?: number;
}

/**
 * Requests after which a case's client is stopped: far more than any client retries (the
 * official SDKs: 2), so only one that retries without end meets it. It bounds the case's time
 * and keeps its journal whole and its failure messages short.
 */
export const MAX_CASE_REQUESTS = 100;

/** Cases several checks judge, each run once per suite run (lazily). */
export interface SharedCases {
  /**
   * `richRequest` buffered and streamed, each answered with a short message. A check that asks
   * while another runs the case waits without its job slot (`asker.idle`, SharedWork).
   */
  richBuffered(asker?: Pick<CheckEnv, 'idle'>): Promise<CaseResult>;
  richStreamed(asker?: Pick<CheckEnv, 'idle'>): Promise<CaseResult>;
  /** Every request answered 429 with `retry-after: 1`. */
  rateLimited(): Promise<CaseResult>;
  /** `message` streamed without a fault: what a check of a stream fault compares with (one run per message). */
  cleanStream(message: Message): Promise<CaseResult>;
}

export interface MessagesClientCtx {
  readonly target: MessagesClientTarget;
  /** The key the client gets from its environment (unique to the run). */
  readonly apiKey: string;
  /** fast-check runs of a command-spawning property in this tier. */
  commandRuns(env: { runs: number; full: boolean }): number;
  /**
   * Run the client once. NotExercised when the mock refused its request for a fault the request
   * checks fail it for (another path, no key, a body the real API refuses): the case's reply was
   * never met. HarnessBug when the mock failed on its own in the run (watchScenario).
   */
  runCase(spec: CaseSpec): Promise<CaseResult>;
  /** A base URL where nothing listens: connecting is refused. */
  refusedBaseUrl(): Promise<string>;
  readonly shared: SharedCases;
  /** What every run of the client command left running when it ended (messages-client.processes.none-left). */
  readonly leftovers: LeftoverLedger;
}

/** The same reply to every request (so a client that retries meets the same answer). */
export function always(reply: Reply): Scenario {
  return () => reply;
}

/** A short text reply with a known final message. */
export function helloMessage(id = 'msg_wc_hello'): Message {
  return {
    id,
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5',
    content: [{ type: 'text', text: 'Hello! 👋' }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 12, output_tokens: 4 },
  };
}

export const RATE_LIMIT_RETRY_AFTER_S = 1;

/**
 * What the rate-limit case waits out against a client that honours retry-after: the wait
 * before each of its retries (2, the default of the reference client and the official SDKs).
 */
export const RATE_LIMIT_WAIT_MS = 2 * RATE_LIMIT_RETRY_AFTER_S * 1000;

/**
 * The budget of a case whose answer a client may retry (429, 5xx, a refused connection): a
 * retry schedule of a client configured for more retries fits (the official TypeScript SDK
 * with maxRetries 6 backs off ~23 s in all). A client still retrying when it runs out is
 * not judged (expectClientError). A client that answers at once pays nothing for it.
 */
export const RETRYING_CASE_MS = 50_000;

function once<T>(make: () => Promise<T>): () => Promise<T> {
  let promise: Promise<T> | undefined;
  return () => {
    promise ??= make();
    return promise;
  };
}

/**
 * Start the suite's mock messages service (it accepts only the run's key, by x-api-key
 * or Bearer, so the auth checks judge the journal rather than a refusal) and probe the
 * target command once: a command that cannot be started at all is TargetUnavailable.
 */
export async function openMessagesClient(
  target: MessagesClientTarget,
  seed: number,
  options: MessagesClientSuiteOptions = {},
): Promise<MessagesClientCtx & { close(): Promise<void> }> {
  const apiKey = runApiKey(seed);
  const baseEnv = options.baseEnv ?? process.env;
  const caseTimeoutMs = options.caseTimeoutMs ?? CASE_TIMEOUT_MS;
  // Every case has a mock of its own (a few ms to start), so cases run concurrently (--jobs)
  // and each sees the journal, scenario and request numbering of its own run only.
  const mocks = new Set<MockMessagesService>();
  const leftovers = new LeftoverLedger();
  let runs = 0;

  const runOnce = async (spec: CaseSpec): Promise<CaseResult> => {
    const label = `run ${++runs} of the client`;
    const watched = watchScenario(spec.scenario, label);
    const mock = await startMockMessagesService({ apiKey, seed, scenario: watched.scenario });
    mocks.add(mock);
    const flood = new AbortController();
    // The case's budget counts from the first request, not the client's start-up.
    const contact = firstContact();
    const unwatch = mock.journal.onArrival((entry) => {
      contact.mark();
      if (entry.seq + 1 >= MAX_CASE_REQUESTS) flood.abort();
    });
    let relay: Awaited<ReturnType<typeof startReadSplittingRelay>> | undefined;
    try {
      relay = spec.readCuts && (await startReadSplittingRelay(mock.url, readCutsOf(spec.readCuts)));
      const env = clientEnv(baseEnv, {
        baseUrl: spec.baseUrl ?? relay?.url ?? mock.url,
        apiKey: spec.withKey === false ? undefined : apiKey,
      });
      const run = await leftovers.track(
        label,
        runCommand(target.client, {
          env,
          stdin: JSON.stringify(spec.body),
          timeoutMs: spec.timeoutMs ?? caseTimeoutMs,
          restartTimeoutOn: contact.reached,
          ...(target.startTimeoutMs === undefined ? {} : { startTimeoutMs: target.startTimeoutMs }),
          graceMs: 1000,
          signal: spec.signal === undefined ? flood.signal : AbortSignal.any([spec.signal, flood.signal]),
        }),
      );
      unwatch();
      const entries = mock.journal.entries();
      const bug = watched.failureIn(entries);
      if (bug !== undefined) throw bug;
      return {
        run,
        outcome: classifyRun(run),
        requests: entries.filter((e) => !atOtherApiOperation(e)),
        otherOperations: entries.filter(atOtherApiOperation),
        ...(flood.signal.aborted && { stoppedAfterRequests: MAX_CASE_REQUESTS }),
      };
    } finally {
      unwatch();
      await relay?.close();
      await mock.close();
      mocks.delete(mock);
    }
  };
  const closeMocks = async () => {
    await Promise.allSettled([...mocks].map((m) => m.close()));
  };

  const answer = (message: Message): Scenario => always({ kind: 'message', message });
  const probeSpec = (): CaseSpec => ({ scenario: answer(helloMessage()), body: plainRequest(false) });
  let gone: TargetGone | undefined;

  /**
   * Run a case; when a case that should reach the mock reached nothing, or one that cannot
   * (no key, a refused URL) printed nothing at all, run the probe again: if that reaches
   * nothing either, the client stopped working for good and the run stops (TargetGone, with
   * the cause printed once), instead of failing every later check. Cases run side by side, so
   * a case late in the catalogue may be the first to meet a client that broke: it is told
   * apart from a client that answers that case wrongly the same way.
   */
  const runCase = async (spec: CaseSpec): Promise<CaseResult> => {
    if (gone) throw gone;
    const result = await runOnce(spec);
    const shouldReach = spec.withKey !== false && spec.baseUrl === undefined;
    const looksBroken = shouldReach ? result.requests.length === 0 : result.run.stdout.trim() === '';
    if (!looksBroken) return result;
    const again = await runOnce({ ...probeSpec(), ...(spec.signal && { signal: spec.signal }) });
    if (again.requests.length > 0) return result;
    const what = shouldReach ? 'it sent no request in this case' : 'it printed nothing in this case';
    const cause = `the client command ${quotedCommand(target.client)} no longer reaches the mock messages service: ${what}, nor sent one when run again on the plain request that worked at the start (${exitOf(again.run)}${outputOf(again.run)})`;
    gone = new TargetGone(cause, 'a request to the mock', 'no request', undefined, { sharedCause: cause });
    throw gone;
  };
  const rich = new SharedWork();
  const richBuffered = (asker?: Pick<CheckEnv, 'idle'>) =>
    rich.get(
      'buffered',
      () => runCase({ scenario: answer(helloMessage()), body: richRequest(false) }),
      asker,
    );
  const richStreamed = (asker?: Pick<CheckEnv, 'idle'>) =>
    rich.get('streamed', () => runCase({ scenario: answer(helloMessage()), body: richRequest(true) }), asker);

  /**
   * Run a case whose reply a check judges. When the mock refused the client's request for a
   * fault of the request (another path, no key, a body the real API refuses), the client never
   * met the reply the case scripts, so the case is not exercised; the check of that fault fails
   * it once. That holds only when the fault shows in the shared cases that check judges: a fault
   * seen here alone stays with this check, which then fails with the refusal in its message.
   */
  const judgedCase = async (spec: CaseSpec): Promise<CaseResult> => {
    const result = await runCase(spec);
    if (spec.withKey === false || spec.baseUrl !== undefined) return result;
    const refusal = refusalIn(result.requests);
    if (refusal === undefined) return result;
    // A refusal no check owns (a Content-Encoding the mock does not decode) is no fault to keep.
    const owned =
      refusal.judgedBy === undefined ||
      (await Promise.all([richBuffered(), richStreamed()])).some(
        (r) => refusalIn(r.requests)?.judgedBy === refusal.judgedBy,
      );
    if (!owned) return result;
    throw new NotExercised(
      `the mock refused request ${refusal.index + 1} of the case${refusal.bodyRead ? '' : ' unread'} (status ${refusal.status ?? 'none'}: ${refusal.why}), so the client never met the reply the case scripts; ${judgeOf(refusal)}`,
    );
  };

  const cleanStreams = new Map<string, Promise<CaseResult>>();
  const shared: SharedCases = {
    cleanStream: (message) => {
      // Keyed by the whole message: two checks may stream messages that share an id.
      const key = JSON.stringify(message);
      let run = cleanStreams.get(key);
      if (run === undefined) {
        run = judgedCase({ scenario: answer(message), body: requestFor(message, true) });
        cleanStreams.set(key, run);
      }
      return run;
    },
    richBuffered,
    richStreamed,
    rateLimited: once(() =>
      judgedCase({
        scenario: always({
          kind: 'error',
          status: 429,
          errorType: 'rate_limit_error',
          headers: { 'retry-after': String(RATE_LIMIT_RETRY_AFTER_S) },
        }),
        body: plainRequest(false),
        timeoutMs: RETRYING_CASE_MS,
      }),
    ),
  };

  // Preflight: the client must reach the mock on the plainest request, or nothing can be judged.
  const probe = await runOnce(probeSpec()).catch(async (e: unknown) => {
    await closeMocks();
    throw e;
  });
  const problem = startProblem(probe);
  if (problem !== undefined) {
    await closeMocks();
    throw new TargetUnavailable(
      `the client command ${quotedCommand(target.client)} ${problem}; it was run once (sh -c, the plain request ${JSON.stringify(plainRequest(false))} on stdin, WIRECHECK_BASE_URL pointing at the suite's mock) and no check was run`,
    );
  }

  return {
    target,
    apiKey,
    commandRuns: (env) =>
      Math.max(
        1,
        Math.min(env.runs, env.full ? (options.maxFullCommandRuns ?? 100) : (options.maxCommandRuns ?? 15)),
      ),
    runCase: judgedCase,
    refusedBaseUrl,
    shared,
    leftovers,
    close: closeMocks,
  };
}

/** Why the probe shows the client cannot be tested at all; undefined when it reached the mock. */
function startProblem(probe: CaseResult): string | undefined {
  const { run } = probe;
  if (run.spawnError) return `could not be started: ${run.spawnError.message}`;
  if (probe.requests.length > 0) return undefined;
  // sh's own statuses: 126 found but not executable, 127 not found.
  const how =
    run.exitCode === 126 || run.exitCode === 127
      ? 'could not be started by sh -c'
      : run.timedOut
        ? 'never sent a request to the mock before its time ran out'
        : 'never sent a request to the mock';
  return `${how} (${exitOf(run)}${outputOf(run)})${run.timedOut ? `; ${CLIENT_SLOW_START_HINT}` : ''}`;
}

/**
 * What the run printed: its stdout on one line, or `nothing on stdout` (a client that fails
 * prints the contract's `{"error":{"kind":...,"message":...}}` there, often the whole cause),
 * then the first lines of its stderr when it wrote any.
 */
function outputOf(run: CommandRun): string {
  const block = firstLinesBlock('stderr', run.stderr);
  return `${outputPart('stdout', run.stdout)}${block === '' ? '' : `; ${block}`}`;
}

/** How a run ended, without its output (outputOf shows that). */
function exitOf(run: CommandRun): string {
  const how = run.exitCode === null ? `killed by ${run.signal ?? 'a signal'}` : `exit ${run.exitCode}`;
  return run.timedOut ? `${how}, timed out` : how;
}

/** A base URL where connecting is refused, on a port no other listener can be given meanwhile. */
async function refusedBaseUrl(): Promise<string> {
  try {
    return `http://127.0.0.1:${await refusedLoopbackPort()}`;
  } catch (e) {
    if (e instanceof NoRefusedPortError)
      throw new NotExercised(`no refused connection to send the client to: ${e.message}`);
    throw e;
  }
}
