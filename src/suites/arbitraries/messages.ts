/**
 * fast-check arbitraries for whole message streams, shared by the messages-client suite,
 * the fuzz program and the benchmarks. Everything generated is valid: a stream case
 * serialized by `serializeStreamCase` decodes and reduces to exactly its message.
 */
import fc from 'fast-check';
import {
  eventsOfMessage,
  inputJsonOf,
  type Message,
  type ResponseContentBlock,
  type StreamEvent,
  type ToolUseBlock,
} from '../../protocol/messages/index.js';
import { encodeComment, encodeEvent, type LineEnding } from '../../protocol/sse/index.js';
import { type ArbJsonOptions, arbJsonObject } from './json.js';
import { type ArbTextOptions, arbIdentifier, arbShortText, arbText } from './text.js';

export interface ArbMessageOptions {
  /** Most content blocks (default 4). */
  maxBlocks?: number;
  /** Text sizes (see arbText). */
  text?: ArbTextOptions;
  /** Tool input nesting and width (see arbJsonObject). */
  toolInput?: ArbJsonOptions;
  /** Tool names to draw from besides generated ones (default includes `bash`). */
  toolNames?: readonly string[];
}

const DEFAULT_TOOL_NAMES = ['bash', 'get_weather', 'search', 'str_replace_based_edit_tool'];
const TOOL_NAME_CHARS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-';
const MODELS = ['claude-sonnet-4-5', 'claude-opus-4-1-20250805', 'claude-3-5-haiku-latest', 'wirecheck-mock'];

function arbToolUse(options: ArbMessageOptions): fc.Arbitrary<ToolUseBlock> {
  const name = fc.oneof(
    fc.constantFrom(...(options.toolNames ?? DEFAULT_TOOL_NAMES)),
    // The real API's custom tool names: ^[a-zA-Z0-9_-]{1,128}$.
    fc.string({ unit: fc.constantFrom(...TOOL_NAME_CHARS), minLength: 1, maxLength: 40 }),
  );
  const bashInput = fc.record(
    { command: arbText(options.text), restart: fc.boolean() },
    { requiredKeys: ['command'], noNullPrototype: true },
  );
  return name.chain((n) =>
    fc.record(
      {
        type: fc.constant('tool_use' as const),
        id: arbIdentifier('toolu_', 12, 24),
        name: fc.constant(n),
        // The bash tool gets its documented input; any other tool any JSON object.
        input: n === 'bash' ? bashInput : arbJsonObject(options.toolInput),
      },
      { noNullPrototype: true },
    ),
  );
}

function arbTextBlock(options: ArbMessageOptions): fc.Arbitrary<ResponseContentBlock> {
  return arbText(options.text).map((text) => ({ type: 'text' as const, text }));
}

/**
 * A valid final message: id `msg_...`, 0..maxBlocks text and tool_use blocks (tool ids
 * unique), stop_reason `tool_use` exactly when a tool_use block exists and otherwise
 * end_turn, max_tokens or stop_sequence, stop_sequence a string only with stop_sequence.
 */
export function arbMessage(options: ArbMessageOptions = {}): fc.Arbitrary<Message> {
  const content = fc.uniqueArray(fc.oneof(arbTextBlock(options), arbToolUse(options)), {
    maxLength: options.maxBlocks ?? 4,
    comparator: (a, b) => a.type === 'tool_use' && b.type === 'tool_use' && a.id === b.id,
  });
  const ending = fc.oneof(
    fc.constantFrom('end_turn' as const, 'max_tokens' as const).map((stop_reason) => ({
      stop_reason,
      stop_sequence: null,
    })),
    arbShortText().map((stop_sequence) => ({ stop_reason: 'stop_sequence' as const, stop_sequence })),
  );
  return fc
    .record(
      {
        id: arbIdentifier('msg_', 8, 28),
        model: fc.constantFrom(...MODELS),
        content,
        ending,
        input_tokens: fc.nat({ max: 200_000 }),
        output_tokens: fc.nat({ max: 64_000 }),
      },
      { noNullPrototype: true },
    )
    .map(({ id, model, content, ending, input_tokens, output_tokens }): Message => {
      const usesTools = content.some((b) => b.type === 'tool_use');
      return {
        id,
        type: 'message',
        role: 'assistant',
        model,
        content,
        ...(usesTools ? { stop_reason: 'tool_use', stop_sequence: null } : ending),
        usage: { input_tokens, output_tokens },
      };
    });
}

/** The text a block streams: its text, or its input's JSON text. */
export function streamedPayloadOf(block: ResponseContentBlock): string {
  return block.type === 'text' ? block.text : inputJsonOf(block.input);
}

/** Move an offset off the middle of a surrogate pair: deltas carry whole code points. */
function atCodePoint(s: string, offset: number): number {
  const low = s.charCodeAt(offset);
  return offset > 0 && low >= 0xdc00 && low <= 0xdfff ? offset - 1 : offset;
}

function arbCuts(payload: string, atLeastOne: boolean): fc.Arbitrary<number[]> {
  if (payload.length < 2) return fc.constant([]);
  return fc
    .uniqueArray(fc.integer({ min: 1, max: payload.length - 1 }), {
      minLength: atLeastOne ? 1 : 0,
      maxLength: Math.min(payload.length - 1, 12),
    })
    .map((cuts) =>
      [...new Set(cuts.map((c) => atCodePoint(payload, c)).filter((c) => c > 0))].sort((a, b) => a - b),
    );
}

/**
 * Delta splits for `message` (offsets per block, see eventsOfMessage): cuts fall on code
 * point boundaries, as the real API never splits a character across deltas. Every tool
 * input of two or more characters is cut at least once, so its first fragment is never
 * valid JSON alone (Events rule 3).
 */
export function arbDeltaSplits(message: Message): fc.Arbitrary<number[][]> {
  return fc.tuple(
    ...message.content.map((block) => arbCuts(streamedPayloadOf(block), block.type === 'tool_use')),
  );
}

/** A message, how it is streamed, and how the bytes reach the reader. */
export interface StreamCase {
  message: Message;
  /** Delta offsets per block (see eventsOfMessage). */
  splits: number[][];
  /**
   * A ping goes before the canonical event at each position (0 = before message_start,
   * at most the position of message_stop); a repeated position gives several pings.
   */
  pingsBefore: number[];
  lineEnding: LineEnding;
  /**
   * A comment frame goes before the event at each position of the event list with pings
   * (its length = after message_stop; beyond counts as the end). Comments alternate
   * between `:` and `: keep-alive`.
   */
  comments: number[];
  /** Byte offsets where the serialized stream is cut into chunks (sorted, unique, inside). */
  chunkCuts: number[];
}

export interface SerializedStreamCase {
  /** The events in stream order, pings included (the data of every frame). */
  events: StreamEvent[];
  /** The whole SSE byte stream. */
  bytes: Uint8Array;
  /** `bytes` cut at `chunkCuts`, in order; never empty chunks. */
  chunks: Uint8Array[];
}

function countsOf(positions: readonly number[], max: number): number[] {
  const counts = new Array<number>(max + 1).fill(0);
  for (const p of positions) {
    const at = Math.max(0, Math.min(max, Math.trunc(p)));
    counts[at] = (counts[at] ?? 0) + 1;
  }
  return counts;
}

/** Cut bytes at the given offsets (clamped, sorted, deduplicated). */
export function chunkBytes(bytes: Uint8Array, cuts: readonly number[]): Uint8Array[] {
  const sorted = [...new Set(cuts.map((c) => Math.trunc(c)))]
    .filter((c) => c > 0 && c < bytes.length)
    .sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let from = 0;
  for (const c of sorted) {
    chunks.push(bytes.subarray(from, c));
    from = c;
  }
  if (from < bytes.length || chunks.length === 0) chunks.push(bytes.subarray(from));
  return chunks;
}

const COMMENT_TEXTS = ['', 'keep-alive'];

/** The events, bytes and chunks a stream case stands for. Pure. */
export function serializeStreamCase(c: StreamCase): SerializedStreamCase {
  const canonical = eventsOfMessage(c.message, c.splits);
  const pings = countsOf(c.pingsBefore, canonical.length - 1);
  const events: StreamEvent[] = [];
  canonical.forEach((event, i) => {
    for (let k = 0; k < (pings[i] ?? 0); k++) events.push({ type: 'ping' });
    events.push(event);
  });
  const comments = countsOf(c.comments, events.length);
  const parts: string[] = [];
  let commentNo = 0;
  for (let i = 0; i <= events.length; i++) {
    for (let k = 0; k < (comments[i] ?? 0); k++) {
      parts.push(encodeComment(COMMENT_TEXTS[commentNo++ % COMMENT_TEXTS.length] ?? '', c.lineEnding));
    }
    const event = events[i];
    if (event) parts.push(encodeEvent(event, c.lineEnding));
  }
  const bytes = new TextEncoder().encode(parts.join(''));
  return { events, bytes, chunks: chunkBytes(bytes, c.chunkCuts) };
}

/** Offsets where chunking is most likely to break a decoder: inside UTF-8 sequences, inside CRLF, at frame ends. */
export function interestingCuts(bytes: Uint8Array): number[] {
  const cuts: number[] = [];
  for (let i = 1; i < bytes.length; i++) {
    const b = bytes[i]!;
    const prev = bytes[i - 1]!;
    if ((b & 0xc0) === 0x80 || prev === 10 || prev === 13) cuts.push(i);
  }
  return cuts;
}

function arbChunkCuts(bytes: Uint8Array): fc.Arbitrary<number[]> {
  const length = bytes.length;
  if (length < 2) return fc.constant([]);
  const interesting = interestingCuts(bytes);
  const random = fc.uniqueArray(fc.integer({ min: 1, max: length - 1 }), { maxLength: 40 });
  return fc
    .oneof(
      { arbitrary: fc.constant([]), weight: 1 },
      { arbitrary: random, weight: 4 },
      {
        arbitrary: fc
          .tuple(fc.subarray(interesting, { maxLength: Math.min(60, interesting.length) }), random)
          .map(([a, b]) => [...a, ...b]),
        weight: 4,
      },
      { arbitrary: fc.constant(Array.from({ length: length - 1 }, (_, i) => i + 1)), weight: 1 },
    )
    .map((cuts) => [...new Set(cuts)].sort((a, b) => a - b));
}

export interface ArbStreamCaseOptions extends ArbMessageOptions {
  /** Line endings to choose from (default all three). */
  lineEndings?: readonly LineEnding[];
  /** Most pings and most comments (default 4 each). */
  maxPings?: number;
  maxComments?: number;
}

/** A whole stream case; see StreamCase. */
export function arbStreamCase(options: ArbStreamCaseOptions = {}): fc.Arbitrary<StreamCase> {
  const { lineEndings = ['\n', '\r\n', '\r'], maxPings = 4, maxComments = 4 } = options;
  return arbMessage(options).chain((message) =>
    arbDeltaSplits(message).chain((splits) => {
      const lastEvent = eventsOfMessage(message, splits).length - 1;
      return fc
        .record({
          pingsBefore: fc.array(fc.nat({ max: lastEvent }), { maxLength: maxPings }),
          lineEnding: fc.constantFrom(...lineEndings),
        })
        .chain((pinged) =>
          fc
            .array(fc.nat({ max: lastEvent + 1 + pinged.pingsBefore.length }), { maxLength: maxComments })
            .map((comments) => ({ ...pinged, comments })),
        )
        .chain((framing) => {
          const partial: StreamCase = { message, splits, ...framing, chunkCuts: [] };
          return arbChunkCuts(serializeStreamCase(partial).bytes).map(
            (chunkCuts): StreamCase => ({ ...partial, chunkCuts }),
          );
        });
    }),
  );
}
