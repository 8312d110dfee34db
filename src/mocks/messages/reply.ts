import { z } from 'zod';
import type { RecordedResponse } from '../../fixtures/schema.js';
import {
  type DeltaSplits,
  type Message,
  type MessageRequest,
  MessageShape,
  type StreamEvent,
  Usage,
} from '../../protocol/messages/index.js';
import { estimateTokens, inputTokensOf } from './conversation.js';
import { FaultPlan } from './faults.js';
import type { Journal } from './journal.js';
import type { ReplayOptions } from './replay-plan.js';
import { SendableHeaders } from './sendable-headers.js';
import type { RawFrame } from './source-frames.js';

/**
 * What the mock answers one request with. A `message` is served as the buffered body,
 * or streamed as `eventsOfMessage(message, splits)` shaped by `faults`; an `error` is an
 * HTTP error with the real API's body; `raw` frames are streamed as given (for streams
 * no real service would send).
 */
export type Reply =
  | { kind: 'message'; message: Message; splits?: DeltaSplits; faults?: FaultPlan }
  | { kind: 'error'; status: number; errorType?: string; message?: string; headers?: Record<string, string> }
  | { kind: 'raw'; frames: ReadonlyArray<StreamEvent | RawFrame>; faults?: FaultPlan }
  /**
   * A recorded response (a fixture's), served as recorded: status, headers, every chunk
   * as its own write at its recorded time (scaled by `replay.speed`), the recorded ending;
   * the faults that apply to bytes are layered on top (see REPLAY_FAULTS).
   */
  | { kind: 'recorded'; response: RecordedResponse; replay?: ReplayOptions; faults?: FaultPlan };

export interface ScenarioContext {
  /** 0-based count of assistant turns in request.messages. */
  turnIndex: number;
  /** 0-based index of this request among all requests to this service. */
  requestIndex: number;
  journal: Journal;
  /**
   * The secret values the request presented (its key, credential headers and query
   * parameters), for a scenario that shows the request back (a refusal quoting it).
   */
  secrets?: readonly string[];
}

/** Decides the reply to each valid request. */
export type Scenario = (request: MessageRequest, ctx: ScenarioContext) => Reply | Promise<Reply>;

/** Deterministic ids, derived from the request's index. */
export function messageIdFor(requestIndex: number): string {
  return `msg_mock_${String(requestIndex).padStart(4, '0')}`;
}
export function toolUseIdFor(requestIndex: number, k: number): string {
  return `toolu_mock_${String(requestIndex).padStart(4, '0')}_${k}`;
}

/**
 * A message as written in fixtures and over HTTP: only `content` is required; the rest
 * is filled from the request (model, token estimates, ids from the request index).
 * Blocks of types the spec does not describe (`thinking`...) are kept and served as the
 * real API serves them (see blockStreamForm), not dropped as a reader drops them.
 */
export const MessageDraft = MessageShape.partial({
  id: true,
  type: true,
  role: true,
  model: true,
  stop_reason: true,
  stop_sequence: true,
  usage: true,
}).extend({ usage: Usage.partial().optional() });
export type MessageDraft = z.infer<typeof MessageDraft>;

const RawFrameJson = z.union([
  z.looseObject({ type: z.string() }),
  z.object({ event: z.string().optional(), data: z.string() }),
  z.object({ comment: z.string() }),
]);

/** `splits` in JSON: null where a block keeps one delta. */
const SplitsJson = z.array(z.array(z.number().int().nonnegative()).nullable());

/** A Reply as JSON (fixtures, `PUT /__wirecheck/scenario`), its message a draft. */
export const ReplyJson = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('message'),
    message: MessageDraft,
    splits: SplitsJson.optional(),
    faults: FaultPlan.optional(),
  }),
  z.object({
    kind: z.literal('error'),
    status: z.number().int().min(400).max(599),
    errorType: z.string().min(1).optional(),
    message: z.string().optional(),
    headers: SendableHeaders.optional(),
  }),
  z.object({ kind: z.literal('raw'), frames: z.array(RawFrameJson), faults: FaultPlan.optional() }),
]);
export type ReplyJson = z.infer<typeof ReplyJson>;

/** The text a block stands for in the token estimate: its text, thinking or tool input. */
function generatedText(block: { type: string } & Record<string, unknown>): string {
  if (typeof block.text === 'string') return block.text;
  if (typeof block.thinking === 'string') return block.thinking;
  return block.input === undefined ? '' : JSON.stringify(block.input);
}

/** Fill a draft's missing fields for this request. */
export function completeMessage(draft: MessageDraft, request: MessageRequest, requestIndex: number): Message {
  // Typed as the spec's blocks: the others travel through untouched (see MessageDraft).
  const content = draft.content as Message['content'];
  const outputText = draft.content.map(generatedText).join('');
  return {
    ...draft,
    id: draft.id ?? messageIdFor(requestIndex),
    type: 'message',
    role: 'assistant',
    model: draft.model ?? request.model,
    content,
    stop_reason: draft.stop_reason ?? (content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn'),
    stop_sequence: draft.stop_sequence ?? null,
    usage: {
      ...draft.usage,
      input_tokens: draft.usage?.input_tokens ?? inputTokensOf(request),
      output_tokens: draft.usage?.output_tokens ?? estimateTokens(outputText),
    },
  };
}

/** The Reply a JSON reply stands for, for this request. */
export function replyOfJson(json: ReplyJson, request: MessageRequest, requestIndex: number): Reply {
  if (json.kind !== 'message') return json;
  const { message, splits, faults } = json;
  return {
    kind: 'message',
    message: completeMessage(message, request, requestIndex),
    ...(splits && { splits: splits.map((s) => s ?? undefined) }),
    ...(faults && { faults }),
  };
}
