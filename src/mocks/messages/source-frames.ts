import type { DeltaSplits, Message, StreamEvent } from '../../protocol/messages/index.js';
import { inputJsonOf } from '../../protocol/messages/index.js';
import type { LineEnding } from '../../protocol/sse/index.js';

/**
 * A scripted frame before encoding: an event (name + data text, the name may be absent
 * in a raw reply) or a comment. The planner shapes these into bytes. `singleLine` says
 * the data is known to hold no line break (JSON.stringify output), which spares the
 * encoder a scan of every frame.
 */
export type SourceFrame =
  | { event: string | undefined; data: string; singleLine?: boolean }
  | { comment: string };

/** A frame of a raw reply: an event object, a frame given as text, or a comment. */
export type RawFrame = { type: string } | { event?: string | undefined; data: string } | { comment: string };

/** Frames of a raw reply, in order; an event object is sent under its own `type`. */
export function* framesOfRaw(frames: Iterable<RawFrame | StreamEvent>): Generator<SourceFrame> {
  for (const f of frames) {
    if ('type' in f && typeof f.type === 'string')
      yield { event: f.type, data: JSON.stringify(f), singleLine: true };
    else if ('comment' in f) yield { comment: f.comment };
    else if ('data' in f) yield { event: f.event, data: f.data };
  }
}

/**
 * Cut offsets for a string of length `length`: the given offsets when they are already
 * strictly increasing and inside (0, length) (no copy for long split lists), otherwise
 * clamped, deduplicated and sorted exactly as `splitAt` of the protocol does.
 */
function cutsOf(length: number, offsets: readonly number[] | undefined): readonly number[] {
  if (!offsets || offsets.length === 0) return [];
  let ordered = true;
  let last = 0;
  for (const o of offsets) {
    if (!Number.isInteger(o) || o <= last || o >= length) {
      ordered = false;
      break;
    }
    last = o;
  }
  if (ordered) return offsets;
  return [...new Set(offsets.map((o) => Math.max(0, Math.min(length, Math.trunc(o)))))]
    .filter((o) => o > 0 && o < length)
    .sort((a, b) => a - b);
}

/**
 * The same text as one flat string. A string built by concatenation is a rope in V8;
 * reused in a million frames, every write then walks and copies its tree (measured:
 * ~20% of a long stream's time). Encoding and decoding once makes it flat.
 */
function flat(s: string): string {
  return Buffer.from(s, 'utf8').toString('utf8');
}

/** Frames joined into one piece of SSE text. */
export interface FrameBatch {
  text: string;
  /** How many frames the text holds. */
  frames: number;
}

/**
 * The SSE text of `eventsOfMessage(message, splits)`, `perBatch` frames at a time,
 * lazily, so a stream of a million deltas never sits in memory and costs one generator
 * step per batch, not per frame. Delta frames are templated: the event line, the JSON
 * around the piece and the line ends are built once per block and only the piece is
 * JSON-escaped, because `JSON.stringify` and string building per frame cap throughput.
 * Every data line equals `JSON.stringify` of the same event.
 */
export function* messageBatches(
  message: Message,
  splits: DeltaSplits,
  eol: LineEnding,
  perBatch: number,
): Generator<FrameBatch, void, void> {
  const per = Math.max(1, perBatch);
  const frame = (event: string, data: string) => `event: ${event}${eol}data: ${data}${eol}${eol}`;
  // `batch` and `n` stay locals of this generator (no closure over them): the delta loop
  // is the hot path of every long stream. Each frame appended is followed by the same
  // "yield when full" step.
  let batch = '';
  let n = 0;
  const start: StreamEvent = {
    type: 'message_start',
    message: {
      ...message,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...message.usage, output_tokens: Math.min(1, message.usage.output_tokens) },
    },
  };
  batch += frame('message_start', JSON.stringify(start));
  if (++n === per) {
    yield { text: batch, frames: n };
    batch = '';
    n = 0;
  }
  for (let index = 0; index < message.content.length; index++) {
    const block = message.content[index]!;
    let payload: string;
    let started: object;
    let deltaType: string;
    if (block.type === 'text') {
      // Extra fields of the block (the real API's citations...) travel in the start event.
      started = { type: 'content_block_start', index, content_block: { ...block, text: '' } };
      payload = block.text;
      deltaType = '"text_delta","text"';
    } else {
      const { input, ...rest } = block;
      started = { type: 'content_block_start', index, content_block: { ...rest, input: {} } };
      payload = inputJsonOf(input);
      deltaType = '"input_json_delta","partial_json"';
    }
    batch += frame('content_block_start', JSON.stringify(started));
    if (++n === per) {
      yield { text: batch, frames: n };
      batch = '';
      n = 0;
    }
    const cuts = cutsOf(payload.length, splits[index]);
    const many = cuts.length > 64;
    const prefix = `event: content_block_delta${eol}data: {"type":"content_block_delta","index":${index},"delta":{"type":${deltaType}:`;
    const before = many ? flat(prefix) : prefix;
    const after = many ? flat(`}}${eol}${eol}`) : `}}${eol}${eol}`;
    let from = 0;
    for (let c = 0; c <= cuts.length; c++) {
      const cut = c < cuts.length ? cuts[c]! : payload.length;
      batch += before + JSON.stringify(payload.slice(from, cut)) + after;
      from = cut;
      if (++n === per) {
        yield { text: batch, frames: n };
        batch = '';
        n = 0;
      }
    }
    batch += frame('content_block_stop', `{"type":"content_block_stop","index":${index}}`);
    if (++n === per) {
      yield { text: batch, frames: n };
      batch = '';
      n = 0;
    }
  }
  const delta: StreamEvent = {
    type: 'message_delta',
    delta: { stop_reason: message.stop_reason ?? 'end_turn', stop_sequence: message.stop_sequence },
    usage: { output_tokens: message.usage.output_tokens },
  };
  batch += frame('message_delta', JSON.stringify(delta));
  if (++n === per) {
    yield { text: batch, frames: n };
    batch = '';
    n = 0;
  }
  batch += frame('message_stop', '{"type":"message_stop"}');
  yield { text: batch, frames: n + 1 };
}

/** The frames of `eventsOfMessage(message, splits)` as event name and data, one by one, lazily. */
export function* framesOfMessage(message: Message, splits: DeltaSplits = []): Generator<SourceFrame> {
  for (const { text } of messageBatches(message, splits, '\n', 1)) {
    // text is `event: <event>\ndata: <data>\n\n`, and data is one line.
    const event = text.slice(7, text.indexOf('\n'));
    yield { event, data: text.slice(event.length + 14, -2), singleLine: true };
  }
}
