import {
  atCodePoint,
  type DeltaSplits,
  type Message,
  messageDeltaOf,
  messageStartOf,
  type StreamEvent,
} from '../../protocol/messages/index.js';
import type { LineEnding } from '../../protocol/sse/index.js';
import { BatchBuffer, type TakenWrite } from './batch-buffer.js';
import { blockStreamForm } from './block-stream-form.js';
import { maxQuotedBytes, writeQuoted } from './json-utf8.js';

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
    else if ('comment' in f && typeof f.comment === 'string') yield { comment: f.comment };
    else if ('data' in f) yield { event: f.event, data: f.data };
  }
}

/**
 * Cut offsets for `payload`: the given offsets when they are already strictly increasing,
 * inside (0, length) and off surrogate pairs (no copy for long split lists), otherwise
 * clamped, moved off pairs, deduplicated and sorted exactly as `splitAt` of the protocol does.
 */
function cutsOf(payload: string, offsets: readonly number[] | undefined): readonly number[] {
  if (!offsets || offsets.length === 0) return [];
  const length = payload.length;
  let ordered = true;
  let last = 0;
  for (let i = 0; i < offsets.length; i++) {
    const o = offsets[i]!;
    if (!(o > last && o < length && Math.floor(o) === o && atCodePoint(payload, o) === o)) {
      ordered = false;
      break;
    }
    last = o;
  }
  if (ordered) return offsets;
  return [...new Set(offsets.map((o) => atCodePoint(payload, Math.max(0, Math.min(length, Math.trunc(o))))))]
    .filter((o) => o > 0 && o < length)
    .sort((a, b) => a - b);
}

/** Frames joined into one write. */
export interface FrameBatch extends TakenWrite {
  /** How many frames the bytes hold. */
  frames: number;
}

function batchOf(write: TakenWrite & { frames: number }, frames: number): FrameBatch {
  write.frames = frames;
  return write;
}

/**
 * Pieces longer than this go through `JSON.stringify` and the native UTF-8 encoder, which
 * are quicker than the byte loop on long text (measured: about even at 64 UTF-16 units).
 */
const LONG_PIECE_UNITS = 64;

/**
 * The delta frames of one block, written straight into batches: the bytes around the
 * piece are encoded once, and a short piece is JSON-quoted into the batch from the
 * payload, with no slice, no JSON string and no UTF-8 encoding of its own. This is the
 * hot loop of every long stream, kept out of the generator so that it runs as one plain
 * optimized call per batch.
 */
class DeltaFrames {
  /** The bytes before a piece: event line, `data: ` and the JSON up to the piece. */
  private readonly before: Buffer;
  /** The bytes after a piece: the closing braces and the line ends. */
  private readonly after: Buffer;
  /** `after` then `before`: the end of a frame and the start of the next, in one copy. */
  private readonly between: Buffer;
  /** Index in `cuts` of the end of the next piece (`cuts.length`: the payload's end). */
  private next = 0;
  /** Where the next piece starts in the payload. */
  private from = 0;

  constructor(
    private readonly payload: string,
    private readonly cuts: readonly number[],
    before: string,
    after: string,
  ) {
    this.before = Buffer.from(before, 'utf8');
    this.after = Buffer.from(after, 'utf8');
    this.between = Buffer.concat([this.after, this.before]);
  }

  /** Frames not yet written. */
  get left(): number {
    return this.cuts.length + 1 - this.next;
  }

  /** Writes up to `max` of the next frames to `out`; returns how many it wrote. */
  write(out: BatchBuffer, max: number): number {
    const { payload, cuts, before, after, between } = this;
    const count = Math.min(max, this.left);
    if (count <= 0) return 0;
    let buf = out.reserve(before.length);
    let at = out.end;
    buf.set(before, at);
    at += before.length;
    let from = this.from;
    const last = this.next + count;
    for (let c = this.next; c < last; c++) {
      const cut = c < cuts.length ? cuts[c]! : payload.length;
      const json = cut - from > LONG_PIECE_UNITS ? JSON.stringify(payload.slice(from, cut)) : undefined;
      const room =
        (json === undefined ? maxQuotedBytes(cut - from) : Buffer.byteLength(json)) + between.length;
      if (at + room > buf.length) {
        out.end = at;
        buf = out.reserve(room);
        at = out.end;
      }
      // JSON.stringify output holds no lone surrogate: its UTF-8 bytes are exact.
      at = json === undefined ? writeQuoted(payload, from, cut, buf, at) : at + buf.write(json, at, 'utf8');
      if (c + 1 < last) {
        buf.set(between, at);
        at += between.length;
      } else {
        for (let k = 0; k < after.length; k++) buf[at++] = after[k]!;
      }
      from = cut;
    }
    out.end = at;
    this.from = from;
    this.next = last;
    return count;
  }
}

/**
 * The SSE bytes of `eventsOfMessage(message, splits)` (a block of a type the spec does
 * not describe streamed as `blockStreamForm` says), `perBatch` frames at a time, lazily,
 * so a stream of a million deltas never sits in memory and costs one generator step per
 * batch, not per frame. Delta frames are templated: the bytes of the event line
 * and of the JSON around the piece are encoded once per block, and the piece is
 * JSON-quoted straight into the batch's bytes, with no string built per frame: string
 * building, `JSON.stringify` and UTF-8 encoding per frame cap throughput. Every data line
 * equals `JSON.stringify` of the same event, and the bytes equal its UTF-8 encoding.
 * A batch's bytes live in memory that later batches are built in once the batch is
 * released: release each batch after writing or copying it, never before.
 */
export function* messageBatches(
  message: Message,
  splits: DeltaSplits,
  eol: LineEnding,
  perBatch: number,
): Generator<FrameBatch, void, void> {
  const per = Math.max(1, perBatch);
  const frame = (event: string, data: string) => `event: ${event}${eol}data: ${data}${eol}${eol}`;
  // Each frame appended is followed by the same "yield when full" step.
  const out = new BatchBuffer();
  // Its slabs go back to the pool, even when the reader stops early (a client gone).
  try {
    let n = 0;
    out.text(frame('message_start', JSON.stringify(messageStartOf(message))));
    if (++n === per) {
      yield batchOf(out.take(), n);
      n = 0;
    }
    for (let index = 0; index < message.content.length; index++) {
      // Typed as the spec's blocks, but a scenario may return others (see blockStreamForm).
      const form = blockStreamForm(message.content[index] as unknown as Record<string, unknown>);
      const started = { type: 'content_block_start', index, content_block: form.start };
      out.text(frame('content_block_start', JSON.stringify(started)));
      if (++n === per) {
        yield batchOf(out.take(), n);
        n = 0;
      }
      if (form.deltas) {
        const { payload, typeAndField } = form.deltas;
        const deltas = new DeltaFrames(
          payload,
          cutsOf(payload, splits[index]),
          `event: content_block_delta${eol}data: {"type":"content_block_delta","index":${index},"delta":{"type":${typeAndField}:`,
          `}}${eol}${eol}`,
        );
        while (deltas.left > 0) {
          n += deltas.write(out, per - n);
          if (n === per) {
            yield batchOf(out.take(), n);
            n = 0;
          }
        }
      }
      for (const delta of form.after ?? []) {
        const after = { type: 'content_block_delta', index, delta };
        out.text(frame('content_block_delta', JSON.stringify(after)));
        if (++n === per) {
          yield batchOf(out.take(), n);
          n = 0;
        }
      }
      out.text(frame('content_block_stop', `{"type":"content_block_stop","index":${index}}`));
      if (++n === per) {
        yield batchOf(out.take(), n);
        n = 0;
      }
    }
    out.text(frame('message_delta', JSON.stringify(messageDeltaOf(message))));
    if (++n === per) {
      yield batchOf(out.take(), n);
      n = 0;
    }
    out.text(frame('message_stop', '{"type":"message_stop"}'));
    yield batchOf(out.take(), n + 1);
  } finally {
    out.close();
  }
}

/** The frames of `eventsOfMessage(message, splits)` as event name and data, one by one, lazily. */
export function* framesOfMessage(message: Message, splits: DeltaSplits = []): Generator<SourceFrame> {
  for (const batch of messageBatches(message, splits, '\n', 1)) {
    // The bytes are valid UTF-8 (JSON.stringify escapes lone surrogates), so the text is
    // exactly the frame: `event: <event>\ndata: <data>\n\n`, and data is one line.
    const text = batch.bytes.toString('utf8');
    batch.reuse();
    const event = text.slice(7, text.indexOf('\n'));
    yield { event, data: text.slice(event.length + 14, -2), singleLine: true };
  }
}
