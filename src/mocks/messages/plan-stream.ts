import type { DeltaSplits, Message, StreamEvent } from '../../protocol/messages/index.js';
import { encodeComment, encodeFrame, type LineEnding } from '../../protocol/sse/index.js';
import { ByteChunker, type ChunkPolicy } from './chunker.js';
import type { FaultPlan, Malformation } from './faults.js';
import { mixSeed, type Random, seededRandom } from './random.js';
import {
  framesOfMessage,
  framesOfRaw,
  messageBatches,
  type RawFrame,
  type SourceFrame,
} from './source-frames.js';

/** Pings written during a long pause: `data` every `everyMs` of silence. */
export interface KeepAlive {
  everyMs: number;
  data: string;
}

/** Memory of a write that may be built on again once the write is done (see StreamStep). */
export interface Reusable {
  reuse(): void;
}

/**
 * One step of serving a stream. `framesDone` is the number of scripted frames whose last
 * byte has been written once this write is done. `written`, when there, is for the
 * executor to call (`reuse()`) once the data has been handed to the OS (or its write
 * failed): from then on the data's memory may be built on again, so nothing may read it.
 * A write never reported is simply never reused.
 */
export type StreamStep =
  | { kind: 'write'; data: string | Uint8Array; framesDone: number; written?: Reusable }
  | { kind: 'wait'; ms: number; keepAlive?: KeepAlive }
  /** Pause until the client goes away. */
  | { kind: 'stall'; keepAlive?: KeepAlive }
  /** Destroy the connection once everything written so far has been flushed. */
  | { kind: 'disconnect' }
  /**
   * Wait until everything written so far has left the process, so the next write is a
   * separate segment (replays at full speed keep their recorded chunk boundaries).
   */
  | { kind: 'flush' }
  /** End the response normally. */
  | { kind: 'end' };

export interface PlanOptions {
  /** `request_id` of an injected error event (the real API includes it). */
  requestId?: string;
  /** Frames joined into one write when no chunking is set (default 64). */
  framesPerWrite?: number;
  /** Keep-alive interval when the plan has no `keepAliveMs` (the service's pingIntervalMs). */
  keepAliveMs?: number;
}

export const EOL: Record<NonNullable<FaultPlan['lineEnding']>, LineEnding> = {
  lf: '\n',
  crlf: '\r\n',
  cr: '\r',
};
const GARBAGE_LINE = 'this line is not an SSE field';

/**
 * The steps that serve `events` (event objects or raw frames) under `faults`, every
 * random choice drawn from `seed`. Pure: the same arguments give the same steps.
 */
export function planStream(
  events: Iterable<StreamEvent | RawFrame>,
  faults: FaultPlan | undefined,
  seed: number,
  options: PlanOptions = {},
): StreamStep[] {
  return [...planSteps(framesOfRaw(events), faults, seed, options)];
}

/**
 * The steps that serve a message reply. Without per-frame faults the frames are
 * templated straight into batches (the fast path: one generator step per write); with
 * them, the frames go through `planSteps` one by one.
 */
export function* planMessageSteps(
  message: Message,
  splits: DeltaSplits | undefined,
  faults: FaultPlan | undefined,
  seed: number,
  options: PlanOptions = {},
): Generator<StreamStep> {
  const plan = faults ?? {};
  if (perFrame(plan)) {
    yield* planSteps(framesOfMessage(message, splits), plan, seed, options);
    return;
  }
  const eol = EOL[plan.lineEnding ?? 'lf'];
  let done = 0;
  for (const batch of messageBatches(message, splits ?? [], eol, options.framesPerWrite ?? 64)) {
    done += batch.frames;
    yield { kind: 'write', data: batch.bytes, framesDone: done, written: batch };
  }
  yield { kind: 'end' };
}

/** How many times each gap position is listed: a position listed twice gets two frames in a row. */
function countsOf(positions: readonly number[] | undefined): Map<number, number> {
  const counts = new Map<number, number>();
  for (const at of positions ?? []) counts.set(at, (counts.get(at) ?? 0) + 1);
  return counts;
}

/** `planStream` over already prepared frames, lazily: steps are produced as they are consumed. */
export function* planSteps(
  source: Iterable<SourceFrame>,
  faults: FaultPlan | undefined,
  seed: number,
  options: PlanOptions = {},
): Generator<StreamStep> {
  const plan = faults ?? {};
  const eol = EOL[plan.lineEnding ?? 'lf'];
  if (!perFrame(plan)) {
    yield* batched(source, eol, options.framesPerWrite ?? 64);
    return;
  }
  const random = seededRandom(mixSeed(seed, 1));
  const out = createWriter(plan, mixSeed(seed, 2), options.framesPerWrite ?? 64);
  const keepAliveMs = plan.keepAliveMs ?? options.keepAliveMs;
  const keepAlive: KeepAlive | undefined =
    keepAliveMs === undefined ? undefined : { everyMs: keepAliveMs, data: pingFrame(eol) };
  const pause = (ms: number): StreamStep =>
    keepAlive && ms > keepAlive.everyMs ? { kind: 'wait', ms, keepAlive } : { kind: 'wait', ms };
  const at = {
    pings: countsOf(plan.pings?.at),
    comments: countsOf(plan.comments?.at),
    unknown: countsOf(plan.unknownEvents?.at),
  };
  const malformed = new Map<number, { kind: Malformation; eventName?: string | undefined }>();
  for (const m of plan.malformed ?? []) malformed.set(m.atFrame, m);
  const injectHere = (counts: ReadonlyMap<number, number>, rate: number | undefined, i: number): number =>
    (counts.get(i) ?? 0) + (rate !== undefined && rate > 0 && random() < rate ? 1 : 0);

  /** Gap i, just before scripted frame i; false when the stream ends there. */
  function* gap(i: number, beforeFrame: boolean): Generator<StreamStep, boolean> {
    if (plan.stall?.afterFrame === i) {
      yield* out.flush();
      yield plan.stall.ms === undefined
        ? { kind: 'stall', ...(keepAlive && { keepAlive }) }
        : pause(plan.stall.ms);
    }
    if (plan.disconnectAfterFrame === i) {
      yield* out.flush();
      yield { kind: 'disconnect' };
      return false;
    }
    if (plan.errorEvent?.atFrame === i) {
      const { errorType = 'overloaded_error', message = 'Overloaded' } = plan.errorEvent;
      const body = {
        type: 'error',
        error: { type: errorType, message },
        ...(options.requestId !== undefined && { request_id: options.requestId }),
      };
      yield* out.text(encodeFrame('error', JSON.stringify(body), eol), false);
      yield* out.flush();
      yield { kind: 'end' };
      return false;
    }
    const delay = beforeFrame ? delayBefore(plan.delayMs, i) : 0;
    if (delay > 0) {
      yield* out.flush();
      yield pause(delay);
    }
    for (let n = injectHere(at.pings, plan.pings?.rate, i); n > 0; n--)
      yield* out.text(pingFrame(eol), false);
    for (let n = injectHere(at.comments, plan.comments?.rate, i); n > 0; n--) {
      yield* out.text(encodeComment(plan.comments?.text ?? 'wirecheck', eol), false);
    }
    for (let n = injectHere(at.unknown, plan.unknownEvents?.rate, i); n > 0; n--) {
      const name = plan.unknownEvents?.name ?? 'wirecheck_unknown_event';
      yield* out.text(encodeFrame(name, JSON.stringify({ type: name }), eol), false);
    }
    return true;
  }

  if (plan.bom) yield* out.text('\uFEFF', false);
  let i = 0;
  for (const frame of source) {
    if (!(yield* gap(i, true))) return;
    if (!(plan.omitMessageStop && 'event' in frame && frame.event === 'message_stop')) {
      yield* out.text(encodeScripted(frame, i, plan, eol, malformed.get(i)), true);
    }
    i++;
  }
  if (!(yield* gap(i, false))) return;
  yield* out.flush();
  yield { kind: 'end' };
}

/** Whether the plan does anything between or to frames, or to the bytes (else: the fast path). */
export function perFrame(plan: FaultPlan): boolean {
  for (const [key, value] of Object.entries(plan)) {
    if (
      value !== undefined &&
      value !== false &&
      key !== 'seed' &&
      key !== 'lineEnding' &&
      key !== 'httpError' &&
      key !== 'headersDelayMs' &&
      key !== 'keepAliveMs'
    ) {
      return true;
    }
  }
  return false;
}

/**
 * The fast path: frames encoded and joined into writes of framesPerWrite frames, with
 * no per-frame bookkeeping, so a long stream runs at the speed of string building.
 */
function* batched(
  source: Iterable<SourceFrame>,
  eol: LineEnding,
  framesPerWrite: number,
): Generator<StreamStep> {
  const per = Math.max(1, framesPerWrite);
  let batch = '';
  let inBatch = 0;
  let done = 0;
  for (const frame of source) {
    if (!('event' in frame)) batch += encodeComment(frame.comment, eol);
    else if (frame.singleLine && frame.event !== undefined) {
      batch += `event: ${frame.event}${eol}data: ${frame.data}${eol}${eol}`;
    } else batch += encodeFrame(frame.event, frame.data, eol);
    done++;
    if (++inBatch === per) {
      yield { kind: 'write', data: batch, framesDone: done };
      batch = '';
      inBatch = 0;
    }
  }
  if (batch !== '') yield { kind: 'write', data: batch, framesDone: done };
  yield { kind: 'end' };
}

function delayBefore(delay: FaultPlan['delayMs'], i: number): number {
  if (delay === undefined) return 0;
  return typeof delay === 'number' ? delay : (delay[i] ?? 0);
}

function pingFrame(eol: LineEnding): string {
  return encodeFrame('ping', '{"type":"ping"}', eol);
}

function encodeScripted(
  frame: SourceFrame,
  i: number,
  plan: FaultPlan,
  eol: LineEnding,
  broken: { kind: Malformation; eventName?: string | undefined } | undefined,
): string {
  if ('comment' in frame) return encodeComment(frame.comment, eol);
  let { event, data } = frame;
  if (!broken && !plan.idLines && !plan.multiLineData) return encodeFrame(event, data, eol);
  const extra: string[] = [];
  if (plan.idLines) extra.push(`id: ${i}`);
  if (plan.multiLineData) data = spreadOverLines(data);
  switch (broken?.kind) {
    case 'invalid-json':
      data = invalidJson(data);
      break;
    case 'type-mismatch':
      event =
        broken.eventName ?? (event === 'content_block_delta' ? 'content_block_stop' : 'content_block_delta');
      break;
    case 'no-event-line':
      event = undefined;
      break;
    case 'garbage-line':
      extra.push(GARBAGE_LINE);
      break;
  }
  let head = event === undefined ? '' : `event: ${event}${eol}`;
  for (const line of extra) head += line + eol;
  return head + encodeFrame(undefined, data, eol);
}

/** The same JSON value as text over several lines (a decoder joins data lines with LF). */
function spreadOverLines(data: string): string {
  try {
    return JSON.stringify(JSON.parse(data), null, 1);
  } catch {
    return data;
  }
}

/** Text that certainly is not JSON, derived from `data` so it stays recognisable. */
function invalidJson(data: string): string {
  const candidate = data.endsWith('}') ? data.slice(0, -1) : `${data}}`;
  try {
    JSON.parse(candidate);
    return `not json: ${data}`;
  } catch {
    return candidate;
  }
}

interface Writer {
  /** Add text; `scripted` marks the end of a scripted frame (for framesDone). */
  text(s: string, scripted: boolean): Generator<StreamStep>;
  /** Write out everything pending. */
  flush(): Generator<StreamStep>;
}

/** Batches frames into large writes, or cuts the bytes by the plan's chunking. */
function createWriter(plan: FaultPlan, chunkSeed: number, framesPerWrite: number): Writer {
  const policy = chunkPolicyOf(plan, seededRandom(chunkSeed));
  return policy ? chunkedWriter(policy) : batchedWriter(Math.max(1, framesPerWrite));
}

function chunkPolicyOf(plan: FaultPlan, random: Random): ChunkPolicy | undefined {
  const { chunking, splitCrLf, splitUtf8 } = plan;
  if (!chunking && !splitCrLf && !splitUtf8) return undefined;
  const policy: ChunkPolicy = { splitCrLf: splitCrLf ?? false, splitUtf8: splitUtf8 ?? false };
  if (chunking?.mode === 'fixed') policy.size = { fixed: chunking.size };
  if (chunking?.mode === 'random') {
    const minBytes = chunking.minBytes ?? 1;
    policy.size = { minBytes, maxBytes: Math.max(minBytes, chunking.maxBytes ?? 16), random };
  }
  return policy;
}

function batchedWriter(framesPerWrite: number): Writer {
  let batch = '';
  let frames = 0;
  let done = 0;
  return {
    *text(s, scripted) {
      batch += s;
      if (scripted) done++;
      if (++frames >= framesPerWrite) {
        yield { kind: 'write', data: batch, framesDone: done };
        batch = '';
        frames = 0;
      }
    },
    *flush() {
      if (batch !== '') yield { kind: 'write', data: batch, framesDone: done };
      batch = '';
      frames = 0;
    },
  };
}

function chunkedWriter(policy: ChunkPolicy): Writer {
  const chunker = new ByteChunker(policy);
  const encoder = new TextEncoder();
  // Byte offsets at which scripted frames end, not yet covered by a write.
  const ends: number[] = [];
  let head = 0;
  let received = 0;
  let written = 0;
  let done = 0;
  function* emit(chunks: Uint8Array[]): Generator<StreamStep> {
    for (const data of chunks) {
      written += data.length;
      while (head < ends.length && ends[head]! <= written) {
        head++;
        done++;
      }
      if (head > 1024) {
        ends.splice(0, head);
        head = 0;
      }
      yield { kind: 'write', data, framesDone: done };
    }
  }
  return {
    *text(s, scripted) {
      const bytes = encoder.encode(s);
      received += bytes.length;
      if (scripted) ends.push(received);
      yield* emit(chunker.push(bytes));
    },
    *flush() {
      yield* emit(chunker.flush());
    },
  };
}
