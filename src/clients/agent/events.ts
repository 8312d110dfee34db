import { z } from 'zod';
import { BashToolResult, RunnerToolUse } from '../../protocol/bash/index.js';
import { Message } from '../../protocol/messages/index.js';

/** Why a loop ended (Tool-use loop: done, or halted by the turn cap or the circuit breaker). */
export const EndReason = z.enum(['done', 'turn-cap', 'breaker']);
export type EndReason = z.infer<typeof EndReason>;

/**
 * What the loop reports as it goes, in order; the progress display and the transcript are
 * both made from these. `turn` is the 1-based number of the request the event belongs to.
 */
export const AgentEvent = z.discriminatedUnion('type', [
  z.object({ type: z.literal('prompt'), text: z.string() }),
  z.object({
    type: z.literal('request'),
    turn: z.number().int().positive(),
    maxTurns: z.number().int().positive(),
  }),
  z.object({ type: z.literal('reply'), turn: z.number().int().positive(), message: Message }),
  z.object({ type: z.literal('command'), turn: z.number().int().positive(), toolUse: RunnerToolUse }),
  z.object({
    type: z.literal('result'),
    turn: z.number().int().positive(),
    result: BashToolResult,
    /** The command the result answers (absent: a bare restart, or a call answered without running). */
    command: z.string().optional(),
    /** Whether the runner ran it (false: answered without running, e.g. an unknown tool). */
    ran: z.boolean(),
    /** Failing commands in a row after this one (the breaker's count). */
    consecutiveFailures: z.number().int().nonnegative(),
    durationMs: z.number().nonnegative(),
  }),
  z.object({
    type: z.literal('end'),
    reason: EndReason,
    /** Requests sent. */
    turns: z.number().int().nonnegative(),
    consecutiveFailures: z.number().int().nonnegative(),
  }),
  z.object({ type: z.literal('error'), turn: z.number().int().nonnegative(), message: z.string() }),
]);
export type AgentEvent = z.infer<typeof AgentEvent>;
