import type { ScriptedCall, ScriptStep, ServiceErrorStep } from './script.js';

/**
 * Commands the scripted model asks for that exit non-zero (harmless whatever runs them). `(exit 2)`
 * exits in a subshell: a runner that keeps one shell across calls (the spec's restart implies
 * a session) keeps it, where a bare `exit 2` would end it and fail every later command.
 */
export const FAILING_COMMANDS: readonly string[] = ['false', '(exit 2)', "sh -c 'exit 1'"];

/** The marker the several-calls case writes into the working directory. */
export const MARKER_FILE = 'wc-marker.txt';

/**
 * The tool the other-tool case's model calls: never offered by an agent of the bash tool.
 * Its input holds a `command`, so an agent that runs every tool_use as bash leaves the
 * marker file behind.
 */
export const OTHER_TOOL = 'wirecheck_lookup';
export const OTHER_TOOL_MARKER = 'wc-other-tool-ran.txt';
/** The files the cases' commands make: an agent ignoring WIRECHECK_WORKDIR makes them in the user's directory. */
export function isAgentMarker(name: string): boolean {
  return name === MARKER_FILE || name === OTHER_TOOL_MARKER;
}
/** Replies asking for the other tool before the model gives up with a text. */
export const OTHER_TOOL_REPEATS = 4;

/** The turn cap the capped case sets. */
export const CAPPED_MAX_TURNS = 4;
/**
 * The cap every other scripted case sets, with room for all its steps however the agent counts
 * turns. The spec's Turn is an element of `messages`, so an agent may count two turns a request
 * (the reply and the results) plus the prompt: a case of n steps then needs a cap of 2n; 16 is that
 * for the longest script (6 steps) with room to spare.
 */
export const ROOMY_MAX_TURNS = 16;
/** Requests after which the endless model gives up: far past any reading of the cap. */
export const CAPPED_HARD_STOP = 20;
export const DEFAULT_CAP_HARD_STOP = 100;

/** One agent run of the suite: the prompt, the scripted model and the settings. */
export interface AgentCase {
  readonly name: string;
  readonly prompt: string;
  /** Reply i of the model; undefined past the script (answered 500). */
  step(i: number): ScriptStep | undefined;
  /** Replies the script has (for an endless model, its hard stop). */
  readonly steps: number;
  /** WIRECHECK_MAX_TURNS, or undefined to leave it unset. */
  readonly maxTurns: number | undefined;
  /** false: WIRECHECK_WORKDIR names a folder that does not exist yet. */
  readonly workdirExists: boolean;
  /**
   * true: the case's budget counts from each request, not from the first (an endless model,
   * whose checks count how far the agent goes, however slow its turns).
   */
  readonly paced?: boolean;
}

/** A scripted model with bash calls in `calls` (one reply each), ending with a text stopping for `stopReason`. */
function scripted(
  name: string,
  calls: readonly (readonly ScriptedCall[])[],
  options: {
    workdirExists?: boolean;
    stopReason?: string;
    /**
     * `errorsBefore[k]`: the error answered to the first try of the request that reply k (the
     * k-th of the calls, then the final text) answers; the retry gets the reply.
     */
    errorsBefore?: readonly (ServiceErrorStep['serviceError'] | undefined)[];
  } = {},
): AgentCase {
  const { stopReason } = options;
  const replies: ScriptStep[] = [
    ...calls.map((c) => ({ calls: c })),
    stopReason === undefined
      ? { text: `Finished (${name}).` }
      : { text: `Stopped with ${stopReason} (${name}).`, stopReason },
  ];
  const steps = replies.flatMap((reply, k): ScriptStep[] => {
    const serviceError = options.errorsBefore?.[k];
    return serviceError === undefined ? [reply] : [{ serviceError }, reply];
  });
  return {
    name,
    prompt: `wirecheck case ${name}: use the bash tool as you see fit.`,
    step: (i) => steps[i],
    steps: steps.length,
    maxTurns: ROOMY_MAX_TURNS,
    workdirExists: options.workdirExists ?? true,
  };
}

function endless(name: string, maxTurns: number | undefined, hardStop: number): AgentCase {
  return {
    name,
    prompt: `wirecheck case ${name}: keep going until you are stopped.`,
    step: (i) =>
      i < hardStop - 1
        ? { calls: [`echo wc-turn-${i + 1}`] }
        : i === hardStop - 1
          ? { text: 'Hard stop.' }
          : undefined,
    steps: hardStop,
    maxTurns,
    workdirExists: true,
    paced: true,
  };
}

/** The scripted models of the suite (the names are the keys of `AgentCases`). */
export const CASES = {
  oneCall: scripted('one-call', [['echo wc-one-call']]),
  severalCalls: scripted('several-calls', [['echo wc-alpha', `echo wc-beta > ${MARKER_FILE}`, 'true']], {
    workdirExists: false,
  }),
  restart: scripted('restart', [[{ command: 'echo wc-restart', restart: true }], ['echo wc-after-restart']]),
  consecutiveFailures: scripted('consecutive-failures', [
    ['false'],
    ['(exit 2)'],
    ["sh -c 'exit 1'"],
    ['echo wc-unreachable'],
  ]),
  failuresInOneReply: scripted('failures-in-one-reply', [
    ['false', '(exit 2)', "sh -c 'exit 1'"],
    ['echo wc-unreachable'],
  ]),
  // The breaker cases mix no success and failure in one reply: the spec does not say in which
  // order a reply's commands run (LangChain and the AI SDK run them at once by default), so a
  // count of "consecutive" exits within a reply may follow the order they finish in.
  failuresAcrossReplies: scripted('failures-across-replies', [
    ['false', '(exit 2)'],
    ["sh -c 'exit 1'"],
    ['echo wc-unreachable'],
  ]),
  separatedFailures: scripted('separated-failures', [
    ['false'],
    ['(exit 2)'],
    ['echo wc-recovered'],
    ['false'],
    ["sh -c 'exit 1'"],
  ]),
  otherTool: scripted(
    'other-tool',
    Array.from({ length: OTHER_TOOL_REPEATS }, () => [
      { tool: OTHER_TOOL, input: { command: `touch ${OTHER_TOOL_MARKER}`, query: 'weather in Paris' } },
    ]),
  ),
  // A reply cut at max_tokens, and one with a stop reason the spec does not list (the real API's refusal).
  maxTokensStop: scripted('max-tokens-stop', [['echo wc-max-tokens-stop']], { stopReason: 'max_tokens' }),
  unlistedStop: scripted('unlisted-stop', [['echo wc-unlisted-stop']], { stopReason: 'refusal' }),
  // The first request answered 529 overloaded_error, the one that follows the tool call 429
  // rate_limit_error: the real API's SDKs retry both. Each is the first try of its request, so
  // an agent that retries once is served.
  retriedErrors: scripted('retried-errors', [['echo wc-between-retries']], {
    errorsBefore: ['overloaded', 'rateLimited'],
  }),
  capped: endless('capped', CAPPED_MAX_TURNS, CAPPED_HARD_STOP),
  defaultCap: endless('default-cap', undefined, DEFAULT_CAP_HARD_STOP),
} as const satisfies Record<string, AgentCase>;

export type CaseKey = keyof typeof CASES;
export const CASE_KEYS = Object.keys(CASES) as CaseKey[];
