import {
  type DeltaSplits,
  eventsOfMessage,
  inputJsonOf,
  type Message,
  type StreamEvent,
} from '../protocol/messages/index.js';
import { encodeEvent } from '../protocol/sse/index.js';

/** A message and how it is cut into deltas: one stream every variant of a comparison serves or reads. */
export interface BenchStream {
  message: Message;
  splits: DeltaSplits;
  /** SSE frames of the stream (eventsOfMessage(message, splits).length). */
  frames: number;
}

const WORDS = ['stream', 'of', 'text', 'deltas', 'for', 'the', 'bench', 'ünïcode', 'quoted "word"', 'a\\b'];

function messageOf(content: Message['content'], outputTokens: number): Message {
  return {
    id: 'msg_bench',
    type: 'message',
    role: 'assistant',
    model: 'bench-model',
    content,
    stop_reason: content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 12, output_tokens: outputTokens },
  };
}

function streamOf(message: Message, splits: DeltaSplits): BenchStream {
  return { message, splits, frames: eventsOfMessage(message, splits).length };
}

/**
 * One text block streamed as exactly `deltas` text_delta frames of a word each. Some words
 * need JSON escapes or are not ASCII, so an encoder cannot take a shortcut the real
 * stream would not allow.
 */
export function textStream(deltas: number): BenchStream {
  const offsets: number[] = [];
  let text = '';
  for (let i = 0; i < deltas; i++) {
    if (i > 0) offsets.push(text.length);
    text += `${WORDS[i % WORDS.length]} `;
  }
  return streamOf(messageOf([{ type: 'text', text }], deltas), [offsets]);
}

/** One tool_use block whose input JSON is streamed as exactly `fragments` input_json_delta frames. */
export function toolStream(fragments: number): BenchStream {
  const rows = Array.from({ length: Math.max(1, Math.ceil(fragments / 2)) }, (_, i) => ({
    id: i,
    line: `row ${i}`,
  }));
  const input = { path: '/srv/bench/table.json', rows };
  const json = inputJsonOf(input);
  if (json.length < fragments) throw new RangeError(`input JSON too short for ${fragments} fragments`);
  const offsets: number[] = [];
  for (let k = 1; k < fragments; k++) offsets.push(Math.floor((k * json.length) / fragments));
  const block = { type: 'tool_use' as const, id: 'toolu_bench', name: 'bench_tool', input };
  return streamOf(messageOf([block], fragments), [offsets]);
}

/**
 * The SSE text of the stream as the mock must send it (`event:` line, one `data:` line of
 * `JSON.stringify(event)`, LF), joined `framesPerWrite` frames per piece: what a raw
 * server writes, one piece per write.
 */
export function sseBatches(stream: BenchStream, framesPerWrite: number): string[] {
  return [...sseBatchesOf(stream, framesPerWrite)];
}

/** sseBatches one piece at a time, built as they are asked for (nothing kept between requests). */
export function* sseBatchesOf(stream: BenchStream, framesPerWrite: number): Generator<string> {
  const per = Math.max(1, framesPerWrite);
  let batch = '';
  let n = 0;
  for (const event of eventsOfMessage(stream.message, stream.splits)) {
    batch += encodeEvent(event);
    if (++n === per) {
      yield batch;
      batch = '';
      n = 0;
    }
  }
  if (batch !== '') yield batch;
}

/** Body bytes of the whole stream. */
export function sseByteLength(batches: readonly string[]): number {
  let bytes = 0;
  for (const b of batches) bytes += Buffer.byteLength(b);
  return bytes;
}

/**
 * What a consumer's final content must equal, as comparable text: the text of text
 * blocks, the id, name and input of tool_use blocks (an SDK may add fields of its own).
 */
export function contentKey(content: readonly unknown[]): string {
  return JSON.stringify(
    content.map((b) => {
      const block = b as { type?: unknown; text?: unknown; id?: unknown; name?: unknown; input?: unknown };
      return block.type === 'text' ? ['text', block.text] : [block.type, block.id, block.name, block.input];
    }),
  );
}

/** Pieces of exactly 5 characters; some need JSON escapes or are not ASCII. */
const PIECES = ['alpha', 'beta ', 'gamma', 'say "', 'hi" ', 'a\\b\\c', 'ünïcö', 'delta'].map((p) =>
  p.padEnd(5),
);

/**
 * One text block streamed as exactly `deltas` text_delta frames of `PIECE_WIDTH`
 * characters each: the shape a mock that cuts text every N characters (aimock's
 * `chunkSize`) produces, so both serve the same deltas.
 */
export function fixedTextStream(deltas: number): BenchStream & { text: string } {
  let text = '';
  const offsets: number[] = [];
  for (let i = 0; i < deltas; i++) {
    if (i > 0) offsets.push(text.length);
    text += PIECES[i % PIECES.length];
  }
  return { ...streamOf(messageOf([{ type: 'text', text }], deltas), [offsets]), text };
}

/** Characters per delta of fixedTextStream. */
export const PIECE_WIDTH = 5;

/**
 * The SSE text of a one-text-block stream (textStream, fixedTextStream), `framesPerWrite`
 * frames per piece, made per request frame by frame: the same bytes as sseBatches, but
 * nothing is built ahead or kept between requests (what a minimal server holds is the
 * text). The frames around the deltas come from eventsOfMessage of a one-delta copy.
 */
export function* lazyTextBatches(stream: BenchStream, framesPerWrite: number): Generator<string> {
  const block = stream.message.content[0];
  if (stream.message.content.length !== 1 || block?.type !== 'text') {
    throw new RangeError('lazyTextBatches serves one text block');
  }
  const cuts = [0, ...(stream.splits[0] ?? []), block.text.length];
  const one = eventsOfMessage(
    { ...stream.message, content: [{ type: 'text', text: block.text.slice(0, cuts[1]) }] },
    [[]],
  );
  const head = one.slice(0, 2);
  const tail = one.slice(3);
  const per = Math.max(1, framesPerWrite);
  let batch = '';
  let n = 0;
  const add = (frame: string) => {
    batch += frame;
    if (++n < per) return undefined;
    const out = batch;
    batch = '';
    n = 0;
    return out;
  };
  const frames = function* () {
    for (const e of head) yield encodeEvent(e);
    for (let i = 0; i + 1 < cuts.length; i++) {
      const text = block.text.slice(cuts[i], cuts[i + 1]);
      const delta: StreamEvent = {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'text_delta', text },
      };
      yield encodeEvent(delta);
    }
    for (const e of tail) yield encodeEvent(e);
  };
  for (const frame of frames()) {
    const out = add(frame);
    if (out !== undefined) yield out;
  }
  if (batch !== '') yield batch;
}
