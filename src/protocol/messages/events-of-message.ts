import type { Message } from './response.js';
import type { StreamEvent, StreamEventOf } from './stream-events.js';

/**
 * Where to cut each block's streamed payload: for block i, the character offsets at which
 * its text (or its input's JSON text) is split into deltas. Absent: one delta per block.
 * An offset inside a surrogate pair cuts before the pair (atCodePoint).
 */
export type DeltaSplits = readonly (readonly number[] | undefined)[];

/**
 * `offset`, or one less where it falls between the two halves of a surrogate pair. The real
 * API's deltas are whole characters, and a client may not cope with half of one (the Python
 * SDK fails encoding a lone surrogate of `partial_json`).
 */
export function atCodePoint(s: string, offset: number): number {
  const low = s.charCodeAt(offset);
  if (!(low >= 0xdc00 && low <= 0xdfff)) return offset;
  const high = s.charCodeAt(offset - 1);
  return high >= 0xd800 && high <= 0xdbff ? offset - 1 : offset;
}

/** JSON text of a tool input as streamed; keys in insertion order. */
export function inputJsonOf(input: Record<string, unknown>): string {
  return JSON.stringify(input);
}

/** Cut `s` at the given offsets (sorted, deduplicated, clamped, never inside a pair); always at least one piece. */
export function splitAt(s: string, offsets: readonly number[] | undefined): string[] {
  if (!offsets || offsets.length === 0) return [s];
  const cuts = [
    ...new Set(offsets.map((o) => atCodePoint(s, Math.max(0, Math.min(s.length, Math.trunc(o)))))),
  ]
    .filter((o) => o > 0 && o < s.length)
    .sort((a, b) => a - b);
  const pieces: string[] = [];
  let from = 0;
  for (const c of cuts) {
    pieces.push(s.slice(from, c));
    from = c;
  }
  pieces.push(s.slice(from));
  return pieces;
}

/**
 * Fields of a reply the real API sends once the reply is done, in message_delta's `delta`
 * beside the stop reason: the official SDK and the Vercel AI SDK read them there only (the
 * SDK sets `stop_details` from every message_delta, so one sent in message_start is lost).
 * In message_start they are null, as the stop reason is.
 */
const FINAL_FIELDS = ['stop_details', 'container'] as const;

/** message_start of `message`: the container, no content, no stop reason, the first output count. */
export function messageStartOf(message: Message): StreamEventOf<'message_start'> {
  const pending = FINAL_FIELDS.filter((f) => Object.hasOwn(message, f)).map((f) => [f, null]);
  return {
    type: 'message_start',
    message: {
      ...message,
      ...Object.fromEntries(pending),
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...message.usage, output_tokens: Math.min(1, message.usage.output_tokens) },
    },
  };
}

/** message_delta of `message`: its stop reason, the fields of FINAL_FIELDS it has, its output count. */
export function messageDeltaOf(message: Message): StreamEventOf<'message_delta'> {
  const final = FINAL_FIELDS.filter((f) => Object.hasOwn(message, f)).map((f) => [f, message[f]]);
  return {
    type: 'message_delta',
    delta: {
      stop_reason: message.stop_reason ?? 'end_turn',
      stop_sequence: message.stop_sequence,
      ...Object.fromEntries(final),
    },
    usage: { output_tokens: message.usage.output_tokens },
  };
}

/**
 * The citations a text block's start leaves out, each sent as a citations_delta after its
 * text as the real API streams them (the official SDK and the Vercel AI SDK build a block's
 * citations from these deltas only). The start keeps `citations` as an empty list, so a
 * reader that appends to it rebuilds the list the block has.
 */
export function citationsOf(block: Readonly<Record<string, unknown>>): readonly unknown[] | undefined {
  return Array.isArray(block.citations) ? block.citations : undefined;
}

/**
 * The canonical event sequence that streams `message` (Events rule 1): message_start
 * with empty content and null stop reason, for each block start / deltas / stop, then
 * message_delta with the stop reason and output tokens, then message_stop. Tool input
 * JSON is split into fragments that are not valid JSON on their own (rule 3). What the real
 * API adds travels where it sends it (citationsOf, FINAL_FIELDS).
 */
export function eventsOfMessage(message: Message, splits: DeltaSplits = []): StreamEvent[] {
  const events: StreamEvent[] = [messageStartOf(message)];
  message.content.forEach((block, index) => {
    if (block.type === 'text') {
      const citations = citationsOf(block);
      events.push({
        type: 'content_block_start',
        index,
        content_block: { ...block, text: '', ...(citations && { citations: [] }) },
      });
      for (const text of splitAt(block.text, splits[index])) {
        events.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } });
      }
      for (const citation of citations ?? []) {
        events.push({ type: 'content_block_delta', index, delta: { type: 'citations_delta', citation } });
      }
    } else {
      const { input, ...rest } = block;
      events.push({ type: 'content_block_start', index, content_block: { ...rest, input: {} } });
      for (const partial_json of splitAt(inputJsonOf(input), splits[index])) {
        events.push({
          type: 'content_block_delta',
          index,
          delta: { type: 'input_json_delta', partial_json },
        });
      }
    }
    events.push({ type: 'content_block_stop', index });
  });
  events.push(messageDeltaOf(message));
  events.push({ type: 'message_stop' });
  return events;
}
