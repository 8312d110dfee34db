import { chmod, mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type OpenEnv, TargetGone, TargetUnavailable } from '../../harness/check.js';
import { LeftoverLedger } from '../../harness/containment/index.js';
import { firstContact } from '../../harness/first-contact.js';
import { type CommandRun, runCommand } from '../../harness/run-command.js';
import { createSlots } from '../../harness/slots.js';
import { joinWarnings, watchStrayMarkers } from '../../harness/stray-markers.js';
import { removeWorkDir, withLeftover } from '../../harness/work-dir.js';
import {
  atOtherApiOperation,
  type JournalEntry,
  type MockMessagesService,
  startMockMessagesService,
} from '../../mocks/messages/index.js';
import type { Message } from '../../protocol/messages/index.js';
import { runApiKey } from '../messages-client/target.js';
import { watchScenario } from '../messages-mock-failures.js';
import { CLIENT_SLOW_START_HINT } from '../target-options.js';
import { quotedCommand } from '../target-secrets.js';
import { type AgentCase, CASES, type CaseKey, isAgentMarker } from './cases.js';
import { CASE_TIMEOUT_MS, loopRequests, PACED_CASE_BUDGETS } from './expect.js';
import { type StderrLines, watchStderrLines } from './operator-lines.js';
import { cannotStart, describeOutput } from './preflight.js';
import { scriptedAgentModel } from './script.js';
import { specRequestError } from './spec-request.js';
import { type AgentTarget, agentEnv } from './target.js';

/** Tuning of the suite itself (not of the target). */
export interface AgentSuiteOptions {
  /** Budget of one agent run (default CASE_TIMEOUT_MS, 60 s). */
  readonly caseTimeoutMs?: number;
  /** Environment the agent's own is built from (default process.env). */
  readonly baseEnv?: Readonly<Record<string, string | undefined>>;
}

/** One run of the agent on one scripted model. */
export interface AgentCaseResult {
  readonly spec: AgentCase;
  readonly run: CommandRun;
  /**
   * The requests of the loop the mock received during the run, in arrival order: those to
   * the messages endpoint, and those to a path that is no operation of the real API.
   */
  readonly requests: readonly JournalEntry[];
  /**
   * Requests to the real API's other operations (a token count, the models list: "not shown"
   * in the spec), which the mock does not serve and no check judges; kept apart so that the
   * checks count and pair the loop's requests only.
   */
  readonly otherOperations: readonly JournalEntry[];
  /**
   * Requests the mock refused before reading the body (its size, its coding, its host guard,
   * its body budget) that a later request got past: no turn of the loop (loopRequests), kept
   * apart as otherOperations are. agent.loop.requests-accepted still judges their size.
   */
  readonly retriedRefusals?: readonly JournalEntry[];
  /** `served[i]`: the message the mock answered `requests[i]` with (undefined: it refused it). */
  readonly served: readonly (Message | undefined)[];
  readonly workdir: string;
  /** The distinct lines of the whole stderr (agent.breaker.operator-line and operator-line-asks). */
  readonly stderrLines: StderrLines;
  /** Set when wirecheck stopped the agent for sending MAX_CASE_REQUESTS requests in the case. */
  readonly stoppedAfterRequests?: number;
}

/**
 * Requests after which a case's agent is stopped: twice the longest script, so only an
 * agent that never stops (or retries without end) meets it. It bounds the case's time, and
 * keeps its journal whole (the mock's journal forgets its oldest entries past its limits, and
 * the checks judge a case from its first request on).
 */
export const MAX_CASE_REQUESTS = 200;

export interface AgentCtx {
  readonly target: AgentTarget;
  /** The budget of a case, between two requests for a paced one (AgentCase.paced). */
  readonly caseTimeoutMs: number;
  /**
   * The result of a case; each case runs once per suite run, when a check first asks. A
   * HarnessBug when the mock failed on its own in the case (watchScenario): no check judges it.
   */
  result(key: CaseKey): Promise<AgentCaseResult>;
  /** Several cases' results, in the order asked. */
  results(keys: readonly CaseKey[]): Promise<AgentCaseResult[]>;
  /** What every run of the agent command left running when it ended (agent.processes.none-left). */
  readonly leftovers: LeftoverLedger;
}

/**
 * Start the suite's mock messages service (accepting only the run's key) and probe the
 * agent with the one-call case: a command that cannot be started, or that never sends a
 * request to the mock (`cat`, a script that dies at start), is TargetUnavailable (exit 2,
 * no check counted). A later case whose command cannot be started any more is TargetGone.
 * Each case runs against a mock of its own, so cases may run concurrently, `jobs` at most:
 * most checks judge every case, so the first check asks for all of them at once.
 */
export async function openAgent(
  target: AgentTarget,
  /** `jobs`: agent processes running at once at most (default 1); `signal`: the run's stop (an interrupt), which ends a running case. */
  env: Pick<OpenEnv, 'seed' | 'jobs' | 'signal'>,
  options: AgentSuiteOptions = {},
): Promise<AgentCtx & { close(): Promise<string | undefined> }> {
  const { seed, signal: stop } = env;
  const running = createSlots(env.jobs ?? 1);
  const apiKey = runApiKey(seed);
  const root = await mkdtemp(join(tmpdir(), 'wirecheck-agent-suite-'));
  // mkdtemp makes it 0700; a runner that drops to an unprivileged uid must get through it.
  await chmod(root, 0o711);
  // Every case has a mock of its own, so cases run concurrently (--jobs) and each sees the
  // journal, scenario and request numbering of its own run only.
  const mocks = new Set<MockMessagesService>();
  const strayMarkers = watchStrayMarkers(isAgentMarker, 'agent');
  const close = async () => {
    await Promise.allSettled([...mocks].map((m) => m.close()));
    return joinWarnings(strayMarkers.sweep(), removeWorkDir(root));
  };
  const baseEnv = options.baseEnv ?? process.env;
  const timeoutMs = options.caseTimeoutMs ?? CASE_TIMEOUT_MS;
  const leftovers = new LeftoverLedger();

  const runCase = async (spec: AgentCase): Promise<AgentCaseResult> => {
    await running.acquire();
    try {
      return await runCaseNow(spec);
    } finally {
      running.release();
    }
  };

  const runCaseNow = async (spec: AgentCase): Promise<AgentCaseResult> => {
    const model = scriptedAgentModel(spec.name, (i) => spec.step(i));
    const watched = watchScenario(model.scenario, `case ${spec.name}`);
    // A body only the real API refuses (max_tokens 0, a bash version it does not know) is
    // served: requests-accepted warns about it, and the rest of the loop is still judged.
    const mock = await startMockMessagesService({
      apiKey,
      seed,
      scenario: watched.scenario,
      admit: (body) => specRequestError(body) === undefined,
    });
    mocks.add(mock);
    const flood = new AbortController();
    // The case's budget counts from the first request, not the client's start-up.
    const contact = firstContact();
    let step = () => {};
    const stderrLines = watchStderrLines(spec.name);
    const unwatch = mock.journal.onArrival((entry) => {
      contact.mark();
      step();
      if (entry.seq + 1 >= MAX_CASE_REQUESTS) flood.abort();
    });
    try {
      const workdir = join(root, spec.name);
      if (spec.workdirExists) await mkdir(workdir, { recursive: true });
      const run = await leftovers.track(
        `case ${spec.name}`,
        runCommand(target.agent, {
          env: agentEnv(baseEnv, { baseUrl: mock.url, apiKey, maxTurns: spec.maxTurns, workdir }),
          stdin: `${spec.prompt}\n`,
          timeoutMs,
          restartTimeoutOn: contact.reached,
          ...(spec.paced && {
            stepped: { onStep: (s: () => void) => (step = s), atMostMs: PACED_CASE_BUDGETS * timeoutMs },
          }),
          ...(target.startTimeoutMs === undefined ? {} : { startTimeoutMs: target.startTimeoutMs }),
          graceMs: 1000,
          signal: stop === undefined ? flood.signal : AbortSignal.any([stop, flood.signal]),
          // The breaker's request to an operator, wherever it is in a stderr longer than the 16 KiB kept.
          stderrLine: stderrLines.see,
        }),
      );
      unwatch();
      const journal = mock.journal.entries();
      const bug = watched.failureIn(journal);
      if (bug !== undefined) throw bug;
      const problem = journal.length === 0 ? cannotStart(run) : undefined;
      if (problem !== undefined) {
        const cause = `the agent command ${quotedCommand(target.agent)} ${problem}`;
        throw new TargetGone(cause, undefined, undefined, undefined, { sharedCause: cause });
      }
      const { requests, retriedRefusals } = loopRequests(
        journal.filter((entry) => !atOtherApiOperation(entry)),
      );
      const served = requests.map((r) => model.served.get(r.seq));
      return {
        spec,
        run,
        requests,
        otherOperations: journal.filter(atOtherApiOperation),
        retriedRefusals,
        served,
        workdir,
        stderrLines: stderrLines.found(),
        ...(flood.signal.aborted && { stoppedAfterRequests: MAX_CASE_REQUESTS }),
      };
    } finally {
      unwatch();
      await mock.close();
      mocks.delete(mock);
    }
  };

  const memo = new Map<CaseKey, Promise<AgentCaseResult>>();
  const result = (key: CaseKey) => {
    let promise = memo.get(key);
    if (promise === undefined) {
      promise = runCase(CASES[key]);
      memo.set(key, promise);
    }
    return promise;
  };

  let probe: AgentCaseResult;
  try {
    probe = await result('oneCall');
  } catch (e) {
    const left = await close();
    if (e instanceof TargetGone) throw new TargetUnavailable(withLeftover(e.message, left));
    throw e;
  }
  if (stop?.aborted) {
    await close();
    throw new Error('the run was stopped while the agent suite opened');
  }
  if (probe.requests.length === 0) {
    const left = await close();
    const others = probe.otherOperations.map((e) => `${e.method} ${e.url}`);
    const besides =
      others.length === 0
        ? ''
        : `; it called only the real API's other operations, which the mock does not serve (${[...new Set(others)].slice(0, 3).join(', ')})`;
    throw new TargetUnavailable(
      withLeftover(
        `the agent command ${quotedCommand(target.agent)} never sent a request to the mock messages service at WIRECHECK_BASE_URL (the prompt of case ${probe.spec.name} on stdin)${besides}: ${describeOutput(probe.run)}${probe.run.timedOut ? `; ${CLIENT_SLOW_START_HINT}` : ''}`,
        left,
      ),
    );
  }
  return {
    target,
    caseTimeoutMs: timeoutMs,
    result,
    results: (keys) => Promise.all(keys.map(result)),
    leftovers,
    close,
  };
}
