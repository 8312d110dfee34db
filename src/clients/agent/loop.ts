import type { BashToolResult, RunnerToolUse } from '../../protocol/bash/index.js';
import type { Message, MessageRequest, ToolDefinition, Turn } from '../../protocol/messages/index.js';
import { AbortError } from '../messages/errors.js';
import { afterCommand, BREAKER_THRESHOLD, type BreakerState, CLOSED_BREAKER, isFailure } from './breaker.js';
import {
  assistantTurnOf,
  BASH_TOOL,
  dispatchOf,
  hasBashToolUse,
  runnerFailureResult,
  toolResultTurn,
  toolUsesOf,
} from './conversation.js';
import type { AgentEvent, EndReason } from './events.js';

/** Limits: "recommended cap 10 to 15"; the low end, as a runaway loop costs tokens. */
export const DEFAULT_MAX_TURNS = 10;

/** What the loop needs of a messages client (MessagesClient fits). */
export interface MessagesApi {
  create(request: MessageRequest, options?: { signal?: AbortSignal }): Promise<Message>;
}

/**
 * Runs one bash tool_use and answers it (Runner contract); `input.command` is absent only
 * for a bare `{"restart": true}`. Rejects only on abort or a runner bug.
 */
export type RunBash = (toolUse: RunnerToolUse, options: { signal?: AbortSignal }) => Promise<BashToolResult>;

export interface AgentLoopOptions {
  client: MessagesApi;
  runBash: RunBash;
  model: string;
  maxTokens: number;
  /** Requests the loop may send for one prompt (default 10). */
  maxTurns?: number;
  /** Failing commands in a row that halt the loop (default 3). */
  breakerThreshold?: number;
  /** Ask for streamed replies (default false: buffered). */
  stream?: boolean;
  /** Sent on every request (default: the bash tool alone). */
  tools?: readonly ToolDefinition[];
  onEvent?: (event: AgentEvent) => void;
  signal?: AbortSignal;
}

export interface AgentOutcome {
  reason: EndReason;
  /** Requests sent (the turn count the cap limits). */
  turns: number;
  /**
   * The conversation as the agent holds it at the end. When the loop halts, the last turn
   * is the user turn of results that was ready but not sent.
   */
  messages: Turn[];
  /** The last reply. */
  lastMessage: Message;
  consecutiveFailures: number;
}

/**
 * The spec's tool-use loop (client side). A *turn*, for the cap, is one request sent: the
 * loop sends at most `maxTurns` requests, so a model that never stops calling tools gets
 * exactly `maxTurns` requests and the commands of the last reply run but their results
 * are not sent ("result ready, turn count reached cap: halted"). Each reply with bash
 * tool_use blocks is appended as the assistant turn, every tool_use (bash or not) is
 * answered by one tool_result with its id, all in one user turn, and `tools` goes out on
 * every request. The circuit breaker counts failing commands (is_error) per command in
 * execution order; when it trips the loop runs no further command and sends nothing more:
 * the user turn holding the third failure is never sent. A reply without a bash tool_use
 * ends the loop.
 *
 * Rejects with the client's error (MessagesClientError) when a request fails, and with
 * AbortError when `signal` fires.
 */
export async function runAgentLoop(prompt: string, options: AgentLoopOptions): Promise<AgentOutcome> {
  const maxTurns = options.maxTurns ?? DEFAULT_MAX_TURNS;
  const threshold = options.breakerThreshold ?? BREAKER_THRESHOLD;
  if (!Number.isSafeInteger(maxTurns) || maxTurns < 1) {
    throw new TypeError(`maxTurns must be an integer >= 1, got ${maxTurns}`);
  }
  if (!Number.isSafeInteger(threshold) || threshold < 1) {
    throw new TypeError(`breakerThreshold must be an integer >= 1, got ${threshold}`);
  }
  const tools = [...(options.tools ?? [BASH_TOOL])];
  const emit = options.onEvent ?? (() => {});
  const { signal } = options;
  const messages: Turn[] = [{ role: 'user', content: prompt }];
  let breaker: BreakerState = CLOSED_BREAKER;
  emit({ type: 'prompt', text: prompt });

  let turn = 0;
  try {
    for (turn = 1; ; turn++) {
      emit({ type: 'request', turn, maxTurns });
      const request: MessageRequest = {
        model: options.model,
        max_tokens: options.maxTokens,
        messages: [...messages],
        tools,
        ...(options.stream && { stream: true }),
      };
      const message = await options.client.create(request, signal ? { signal } : {});
      emit({ type: 'reply', turn, message });
      const end = (reason: EndReason): AgentOutcome => {
        emit({ type: 'end', reason, turns: turn, consecutiveFailures: breaker.consecutiveFailures });
        return {
          reason,
          turns: turn,
          messages,
          lastMessage: message,
          consecutiveFailures: breaker.consecutiveFailures,
        };
      };
      if (!hasBashToolUse(message)) return end('done');

      messages.push(assistantTurnOf(message));
      const answered = await answerToolUses(message, turn, breaker, { ...options, threshold, emit });
      breaker = answered.breaker;
      const results = answered.results;
      messages.push(toolResultTurn(results));
      if (breaker.tripped) return end('breaker');
      if (turn >= maxTurns) return end('turn-cap');
    }
  } catch (error) {
    const interrupted = error instanceof AbortError || signal?.aborted === true;
    emit({ type: 'error', turn, message: interrupted ? 'interrupted' : describe(error) });
    throw error;
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

interface AnswerContext extends AgentLoopOptions {
  threshold: number;
  emit: (event: AgentEvent) => void;
}

/**
 * One tool_result per tool_use of the reply, in order, the breaker counting each command
 * run; once it trips, the remaining tool_use blocks are left alone: the loop halts, and a
 * halted loop sends nothing, so running them would only act without anyone seeing it.
 */
async function answerToolUses(
  message: Message,
  turn: number,
  start: BreakerState,
  ctx: AnswerContext,
): Promise<{ results: BashToolResult[]; breaker: BreakerState }> {
  let breaker = start;
  const results: BashToolResult[] = [];
  for (const block of toolUsesOf(message)) {
    const dispatch = dispatchOf(block);
    let result: BashToolResult;
    const started = performance.now();
    if (dispatch.kind === 'run') {
      ctx.emit({ type: 'command', turn, toolUse: dispatch.toolUse });
      result = await runOne(ctx.runBash, dispatch.toolUse, ctx.signal);
      // Only commands the runner ran have an exit; an unknown tool is not a command.
      breaker = afterCommand(breaker, isFailure(result), ctx.threshold);
    } else {
      result = dispatch.result;
    }
    results.push(result);
    const command = dispatch.kind === 'run' ? dispatch.toolUse.input.command : undefined;
    ctx.emit({
      type: 'result',
      turn,
      result,
      ...(command !== undefined && { command }),
      ran: dispatch.kind === 'run',
      consecutiveFailures: breaker.consecutiveFailures,
      durationMs: performance.now() - started,
    });
    if (breaker.tripped) break;
  }
  return { results, breaker };
}

async function runOne(
  runBash: RunBash,
  toolUse: RunnerToolUse,
  signal: AbortSignal | undefined,
): Promise<BashToolResult> {
  if (signal?.aborted) throw new AbortError('the agent was interrupted', signal.reason);
  try {
    return await runBash(toolUse, signal ? { signal } : {});
  } catch (error) {
    if (signal?.aborted) throw new AbortError('the agent was interrupted', signal.reason);
    return runnerFailureResult(toolUse.id, error);
  }
}
