import type { Scenario } from '../../mocks/messages/index.js';
import { type ApiErrorType, type Message, STATUS_OF_ERROR_TYPE } from '../../protocol/messages/index.js';

/**
 * A tool call the scripted model makes: a bash command, a bash command with `restart:
 * true`, or a call of another tool (never offered by the agent) with its input.
 */
export type ScriptedCall =
  | string
  | { readonly command: string; readonly restart: true }
  | { readonly tool: string; readonly input: Readonly<Record<string, unknown>> };

/**
 * One reply of the scripted model: bash calls (after a short text), or a final text, which
 * stops with `end_turn` unless `stopReason` says otherwise (max_tokens, or a value the real
 * API added since the spec, such as refusal).
 */
export type ScriptStep =
  | { readonly calls: readonly ScriptedCall[] }
  | { readonly text: string; readonly stopReason?: string }
  | ServiceErrorStep;

/**
 * No reply: an error the real API answers when it cannot serve the request now, and its SDKs
 * retry. The request that comes next gets the script's next step.
 */
export interface ServiceErrorStep {
  readonly serviceError: keyof typeof RETRIED_ERRORS;
}

/** How soon the retried errors ask for a retry (the SDKs' retry-after-ms header). */
export const RETRY_AFTER_MS = 100;

/**
 * The real API's answers that its SDKs retry: 529 overloaded_error when it is overloaded, and
 * 429 rate_limit_error when the account's rate limit is reached (with retry-after in seconds,
 * and retry-after-ms read first). The status is the error type's, and the message the mock's
 * default wording.
 */
export const RETRIED_ERRORS = {
  overloaded: {
    errorType: 'overloaded_error',
    headers: { 'retry-after-ms': String(RETRY_AFTER_MS) },
  },
  rateLimited: {
    errorType: 'rate_limit_error',
    headers: { 'retry-after-ms': String(RETRY_AFTER_MS), 'retry-after': '1' },
  },
} as const satisfies Record<string, { errorType: ApiErrorType; headers: Record<string, string> }>;

/** The HTTP status a retried error is answered with. */
export function statusOfRetried(error: keyof typeof RETRIED_ERRORS): number {
  return STATUS_OF_ERROR_TYPE[RETRIED_ERRORS[error].errorType];
}

export interface ScriptedModel {
  readonly scenario: Scenario;
  /** The message served to each request, by the request's journal `seq`. */
  readonly served: ReadonlyMap<number, Message>;
}

/** The bash command of a call ('' for a call of another tool). */
export function commandOf(call: ScriptedCall): string {
  if (typeof call === 'string') return call;
  return 'command' in call ? call.command : '';
}

/** The tool_use block of call `k` of step `step`. */
function toolUseOf(tag: string, step: number, k: number, call: ScriptedCall) {
  const id = scriptedToolUseId(tag, step, k);
  if (typeof call === 'string')
    return { type: 'tool_use' as const, id, name: 'bash', input: { command: call } };
  if ('tool' in call) return { type: 'tool_use' as const, id, name: call.tool, input: { ...call.input } };
  return { type: 'tool_use' as const, id, name: 'bash', input: { command: call.command, restart: true } };
}

/** Id of the k-th tool_use of step `step` of case `tag`: unique in a suite run, so results can be matched. */
export function scriptedToolUseId(tag: string, step: number, k: number): string {
  return `toolu_wc_${tag.replace(/-/g, '_')}_${step}_${k}`;
}

/** The message step `i` of case `tag` stands for. */
export function messageOfStep(
  tag: string,
  i: number,
  step: Exclude<ScriptStep, ServiceErrorStep>,
  model: string,
): Message {
  const id = `msg_wc_${tag.replace(/-/g, '_')}_${i}`;
  const usage = { input_tokens: 20 + 10 * i, output_tokens: 12 };
  if ('text' in step) {
    return {
      id,
      type: 'message',
      role: 'assistant',
      model,
      content: [{ type: 'text', text: step.text }],
      stop_reason: step.stopReason ?? 'end_turn',
      stop_sequence: null,
      usage,
    };
  }
  return {
    id,
    type: 'message',
    role: 'assistant',
    model,
    content: [
      {
        type: 'text',
        text:
          step.calls.length === 1 ? 'I will run one command.' : `I will run ${step.calls.length} commands.`,
      },
      ...step.calls.map((call, k) => toolUseOf(tag, i, k, call)),
    ],
    stop_reason: 'tool_use',
    stop_sequence: null,
    usage,
  };
}

/**
 * A model that plays a script: the i-th request it accepts (the mock refuses invalid ones
 * before asking the scenario) gets step i. Past the script's end it answers 500, so an
 * agent that goes on asking fails loudly instead of looping.
 */
export function scriptedAgentModel(
  tag: string,
  stepAt: (i: number) => ScriptStep | undefined,
): ScriptedModel {
  const served = new Map<number, Message>();
  let next = 0;
  const scenario: Scenario = (request, { requestIndex }) => {
    const i = next++;
    const step = stepAt(i);
    if (step === undefined) {
      return {
        kind: 'error',
        status: 500,
        errorType: 'api_error',
        message: `script exhausted: the scripted model of case ${tag} has no reply ${i + 1}`,
      };
    }
    if ('serviceError' in step) {
      const { errorType, headers } = RETRIED_ERRORS[step.serviceError];
      return {
        kind: 'error',
        status: statusOfRetried(step.serviceError),
        errorType,
        headers: { ...headers },
      };
    }
    const message = messageOfStep(tag, i, step, request.model);
    served.set(requestIndex, message);
    return { kind: 'message', message };
  };
  return { scenario, served };
}
