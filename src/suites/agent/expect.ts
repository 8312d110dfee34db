import { existsSync } from 'node:fs';
import { CheckFailure, NotExercised } from '../../harness/check.js';
import { describeCommandRun } from '../../harness/command-output.js';
import {
  atMessagesEndpoint,
  DEFAULT_BODY_LIMIT,
  type JournalEntry,
  MESSAGES_PATH,
  pathOf,
} from '../../mocks/messages/index.js';
import { CASES } from './cases.js';
import type { AgentCaseResult } from './context.js';
import { describeRequests } from './conversation.js';
import { describeOutput } from './preflight.js';

/**
 * Budget of one agent run by default. No rule bounds an agent's time; an agent that starts a
 * fresh container or VM per command spends seconds on each turn: a minute leaves such an agent
 * room at the recommended cap of 15 and still ends an agent that hangs. The endless cases (the
 * turn caps, up to 100 turns) give it a minute between two requests instead, and
 * PACED_CASE_BUDGETS minutes in all.
 */
export const CASE_TIMEOUT_MS = 60_000;

/**
 * Budgets of CASE_TIMEOUT_MS an endless case runs at most, from its first request: an agent
 * without a cap whose turns take up to 2.4 s still shows it within (100 requests).
 */
export const PACED_CASE_BUDGETS = 4;

/**
 * Budget of every check of the suite: the agent runs `--jobs` cases at a time, so a check's
 * case may wait for every other case ahead of it in line, each with its budget and its grace
 * (a second), with room for the agents' start-up.
 */
export const CHECK_BUDGET_MS = Math.ceil(
  1.25 *
    Object.values(CASES).reduce(
      (sum, c) => sum + (c.paced ? PACED_CASE_BUDGETS : 1) * CASE_TIMEOUT_MS + 1000,
      0,
    ),
);

/** How the run went, for failure messages: exit status, end of stderr, the requests. */
export function runContext(result: AgentCaseResult): string {
  const stopped =
    result.stoppedAfterRequests === undefined
      ? ''
      : ` (wirecheck stopped it after ${result.stoppedAfterRequests} requests in this case)`;
  const others =
    result.otherOperations.length === 0
      ? ''
      : `; besides, ${result.otherOperations.length} request(s) to other operations of the real API (not judged)`;
  const retried = result.retriedRefusals ?? [];
  const refusedFirst =
    retried.length === 0
      ? ''
      : `; besides, ${retried.length} request(s) the mock refused before reading the body (statuses ${[...new Set(retried.map((e) => e.status))].join(', ')}), each followed by one it read: not counted as turns`;
  return `case ${result.spec.name}: ${describeCommandRun(result.run)}${stopped}; ${describeRequests(result.requests)}${others}${refusedFirst}`;
}

/**
 * A failure of a case. When the agent sent nothing at all in the case, that one fault (with
 * how the agent ended and what it printed) explains it, and reports print it once for every
 * check it fails.
 */
export function caseFailure(
  result: AgentCaseResult,
  message: string,
  expected?: string,
  actual?: string,
): CheckFailure {
  const cause =
    result.requests.length === 0
      ? `the agent sent no request in a case: ${describeOutput(result.run)}`
      : undefined;
  return new CheckFailure(
    message,
    expected,
    actual,
    undefined,
    cause === undefined ? {} : { sharedCause: cause },
  );
}

export function exitOf(result: AgentCaseResult): string {
  const { run } = result;
  if (run.timedOut) return `no exit within the case budget (${Math.round(run.durationMs)} ms)`;
  return run.exitCode === null ? `signal ${run.signal ?? 'none'}` : `exit ${run.exitCode}`;
}

/** Why the mock refused a request and which check judges that, once the case was cut short by it. */
export interface RefusedRequest {
  index: number;
  entry: JournalEntry;
  why: string;
  /** Which check judges the request, or why none does, as the end of a sentence. */
  judgedBy: string;
}

/** 32 MiB, the body limit the mock shares with the real API ("request size limits": not shown by the spec). */
const BODY_LIMIT_TEXT = `${DEFAULT_BODY_LIMIT / (1024 * 1024)} MiB`;

/** The size a request declared, for a message: its Content-Length, when it sent one. */
function declaredSize(entry: JournalEntry): string {
  const length = entry.headers['content-length'];
  return length === undefined ? '' : ` (Content-Length ${length})`;
}

/**
 * Why the mock refused `entry` and which check judges it, or undefined when it served it. Any
 * error status on a body the mock never read counts: no model turn was taken, whatever the
 * status, so no rule of the loop was met. A refused body that was read is the script's own
 * error (a served turn) unless the mock found it invalid (bodyError). An unread body without a
 * status is no refusal: the agent went away before an answer (Node answers a body that
 * stalls past the mock's request timeout with 408 on the socket, which the journal never sees).
 */
export function refusalOf(entry: JournalEntry): Omit<RefusedRequest, 'index' | 'entry'> | undefined {
  if (entry.status === 200) return undefined;
  const unread = entry.body === undefined;
  // The host guard answers before anything else of the request is looked at.
  if (unread && entry.status === 403) {
    return {
      why: `the mock's host guard refused Host ${JSON.stringify(entry.headers.host ?? '')}: it answers only the host of WIRECHECK_BASE_URL and loopback names, against DNS rebinding`,
      judgedBy:
        "no check judges that request: the guard is wirecheck's own, no rule of the spec, and an agent (or a proxy before it) that sends another Host cannot be tested against the mock",
    };
  }
  if (!atMessagesEndpoint(entry)) {
    return {
      why: `${entry.method} ${pathOf(entry)}, not POST ${MESSAGES_PATH}`,
      judgedBy: 'agent.loop.endpoint judges that request',
    };
  }
  if (entry.configuredKeyIn.length === 0) {
    return { why: 'no key', judgedBy: 'agent.auth.key-sent judges that request' };
  }
  if (entry.bodyError !== undefined) {
    return {
      why: entry.bodyError,
      judgedBy: 'agent.loop.requests-valid and agent.loop.requests-accepted judge that request',
    };
  }
  if (!unread || entry.status === undefined) return undefined;
  // Before the 413: a coded body that decodes past the limit gets one too, though what the real
  // API would make of it is not known.
  if (entry.bodyUndecoded !== undefined) {
    return {
      why: entry.bodyUndecoded,
      judgedBy:
        'no check judges that request: whether the real API takes a body of that Content-Encoding is not known',
    };
  }
  if (entry.status === 413) {
    return {
      why: `request_too_large, the body${declaredSize(entry)} over the mock's limit of ${BODY_LIMIT_TEXT}, the real API's request size limit`,
      judgedBy: 'agent.loop.requests-accepted judges that request',
    };
  }
  if (entry.status === 529) {
    return {
      why: `the mock's budget of bodies held at once was spent${declaredSize(entry)}`,
      judgedBy: "no check judges that request: the budget is the mock's own, no rule of the spec",
    };
  }
  return {
    why: `${entry.errorType ?? 'an error'} before the body was read`,
    judgedBy: 'no check judges that request',
  };
}

/**
 * A request the mock refused before reading its body for no fault of its path or its key
 * (its size, its coding, the host guard, the body budget's 529): one an agent may send again
 * and be served, as the real API's SDKs retry a 529.
 */
function refusedUnread(entry: JournalEntry): boolean {
  return (
    entry.body === undefined &&
    entry.status !== undefined &&
    entry.status !== 200 &&
    entry.bodyError === undefined &&
    atMessagesEndpoint(entry) &&
    entry.configuredKeyIn.length > 0
  );
}

/**
 * The case's requests to the messages endpoint (and to paths the mock does not serve), split
 * as the loop counts them: a request refused unread (refusedUnread) that a later request of the
 * case got past (the mock read that one's body) was no turn of the loop. The scripted model
 * answers only the requests it accepts, so the next read request takes the turn the refused
 * one would have, and the loop's course is judged from it on; counted as a turn, the refused
 * request would shift every count and pairing after it (the checks would see one request
 * too many, or cut the case short for a refusal the agent retried past, as SDKs do a 529).
 * A refusal nothing got past still ends the case (refusedRequest). A request without the
 * key, to another path, or with a body the real API refuses stays a turn: the checks of the
 * request judge it there, and the checks of the loop's course report the case cut short.
 */
export function loopRequests(requests: readonly JournalEntry[]): {
  requests: JournalEntry[];
  retriedRefusals: JournalEntry[];
} {
  const lastRead = requests.findLastIndex((entry) => entry.body !== undefined);
  const turns: JournalEntry[] = [];
  const retriedRefusals: JournalEntry[] = [];
  for (const [index, entry] of requests.entries()) {
    (index < lastRead && refusedUnread(entry) ? retriedRefusals : turns).push(entry);
  }
  return { requests: turns, retriedRefusals };
}

/**
 * The first request of the case the mock refused while the scripted model still had a reply
 * for it (refusalOf), and the checks that judge it: a request to a path the mock does not
 * serve (agent.loop.endpoint), a body the mock refused as the real API would (requests-valid,
 * requests-accepted; a body over the real API's size limit, requests-accepted), a request
 * without the run's key (auth.key-sent), or one the mock refused before reading its body for
 * a reason of its own (its host guard, its body budget). An agent that gets an error status
 * ends its loop (or retries) for that reason, so the case says nothing about the rules that
 * apply later in the loop (the breaker, the cap, how it ends).
 */
export function refusedRequest(result: AgentCaseResult): RefusedRequest | undefined {
  for (const [index, entry] of result.requests.entries()) {
    if (index >= result.spec.steps) break;
    const refusal = refusalOf(entry);
    if (refusal !== undefined) return { index, entry, ...refusal };
  }
  return undefined;
}

/**
 * Throws NotExercised when the case was cut short by a refused request (`refusedRequest`)
 * among the first `within` requests, those a conforming agent sends: called by a check about
 * the loop's course before it fails the agent for that course. A refused request the agent
 * should not have sent at all excuses nothing. What was wrong with the request is judged by
 * the checks `refusedRequest` names.
 */
export function expectNotCutShort(result: AgentCaseResult, what: string, within = result.spec.steps): void {
  const refused = refusedRequest(result);
  if (refused === undefined || refused.index >= within) return;
  const { index, entry, why, judgedBy } = refused;
  throw new NotExercised(
    `case ${result.spec.name}: the mock refused request ${index + 1} (status ${entry.status}: ${why}), so the loop ended before ${what}; ${judgedBy}`,
  );
}

/**
 * `within`: the requests a conforming agent sends in the case (default: every step of the
 * script). A case cut short by a refused request is not judged, even when the exit status
 * matches: an agent that exits 0 on an API error did not end its loop for the case's reason.
 */
export function expectExit(result: AgentCaseResult, code: number, what: string, within?: number): void {
  expectNotCutShort(result, 'its exit status could be judged', within);
  if (result.run.exitCode === code && !result.run.timedOut) return;
  throw caseFailure(result, `${what} (${runContext(result)})`, `exit ${code}`, exitOf(result));
}

export function expectRequestCount(result: AgentCaseResult, count: number, what: string): void {
  expectNotCutShort(result, 'its number of requests could be judged', count);
  if (result.requests.length === count) return;
  throw caseFailure(
    result,
    `${what} (${runContext(result)})`,
    `${count} requests`,
    `${result.requests.length} requests`,
  );
}

/**
 * The working directory is there for the case's commands: the case made it, or the agent
 * created it as the contract asks (agent.runner.workdir judges that). Without it the
 * commands could not run where they were meant to, so their outcome says nothing else.
 */
export function workdirReady(result: AgentCaseResult): boolean {
  return result.spec.workdirExists || existsSync(result.workdir);
}

/**
 * Words of a line asking a person to act (agent.breaker.operator-line-asks): someone named to
 * act (an operator, a human, an administrator, a developer, an engineer, the user, on-call...),
 * intervention, instructions, help or advice, a review or an investigation, an escalation or a
 * manual step, or a request to take a look, verify, fix, retry or re-run something. The words
 * are not fixed, so the list is wide: a line it misses costs a warning, never a failure.
 * `please` and `fix` alone are ordinary log words ("please wait", "fix: ..."), and so is an
 * agent's own "retrying": only with an act, or as a request, they ask for one.
 */
const OPERATOR_LINE =
  /\b(operators?|humans?|administrators?|admins?|supervisors?|maintainers?|developers?|engineers?|users?|someone|somebody|person|attention|manual(ly)?|approv\w*|assist\w*|help|advi[sc]e|guidance|instructions?|on-?call|re-?run|re-?try|try again|take a look|look into|verify|please (check|inspect|look|fix|intervene|contact|retry|confirm|resolve)|fix (the|it|this|that|them)|action (required|needed)|requires? (your )?action|needs? (your )?(input|action))\b|interven|review|investigat|escalat|troubleshoot/i;

/**
 * The conversation's roles as a log names them ("[assistant]", "user:", "role": "user", a user
 * turn, an assistant reply): a trace of the loop, which asks nobody for anything.
 */
export const ROLE_LABEL =
  /\[(user|assistant)\]|\b(user|assistant)\s*[:>]|"?role"?\s*[:=]\s*"?(user|assistant)\b|\b(user|assistant)\s+(turns?|messages?|prompts?|content|blocks?|replies|reply|responses?|text)\b/gi;

/**
 * The user named as the one awaited or handed the run ("awaiting user response", "waiting for
 * a user reply", "hand-off to the user: ..."): a request to a person, whatever role label
 * follows.
 */
const USER_ASKED =
  /\b(await(s|ing)?|wait(s|ing)? (for|on)|hand(s|ing)?[- ]?(off|over)( it)? to|handoff to|ask(s|ing)?|contact(s|ing)?|notify(ing)?|notifies|escalat\w* to|pass(es|ing)? (it |this |control )?(back )?to)\s+(an? |the |your )?users?\b/i;

/** Whether a stderr line asks someone to act, the conversation's role names in a log of the loop aside. */
export function asksForOperator(line: string): boolean {
  return USER_ASKED.test(line) || OPERATOR_LINE.test(line.replace(ROLE_LABEL, ' '));
}
