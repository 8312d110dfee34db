import { bytesOfChunk } from '../../fixtures/chunks.js';
import { locateFrames } from '../../fixtures/frames.js';
import type { RecordedResponse } from '../../fixtures/schema.js';
import { encodeFrame } from '../../protocol/sse/index.js';
import { ByteChunker, type ChunkPolicy } from './chunker.js';
import type { FaultPlan } from './faults.js';
import type { StreamStep } from './plan-stream.js';
import { mixSeed, seededRandom } from './random.js';

/** How a recording is served. */
export interface ReplayOptions {
  /**
   * Timing factor: 1 keeps the recorded timing, 2 is twice as fast, 0.5 half as fast;
   * 0 serves as fast as possible (each recorded chunk still its own write, flushed to the
   * kernel before the next). Default 1.
   */
  speed?: number;
  /** Cut the connection once this many body bytes have been written. */
  cutAfterBytes?: number;
}

/**
 * Fault fields that mean something on a recorded byte stream. Frame positions count the
 * recorded frames, pings included. The others (line endings, injected frames, malformed
 * frames, per-frame delays...) shape scripted frames and have no meaning on recorded
 * bytes: `unsupportedReplayFaults` names them so callers can refuse them.
 */
export const REPLAY_FAULTS = [
  'seed',
  'httpError',
  'headersDelayMs',
  'disconnectAfterFrame',
  'stall',
  'errorEvent',
  'chunking',
  'splitCrLf',
  'splitUtf8',
] as const;

/** The fields of `plan` a replay would ignore. */
export function unsupportedReplayFaults(plan: FaultPlan | undefined): string[] {
  if (!plan) return [];
  return Object.entries(plan)
    .filter(([k, v]) => v !== undefined && v !== false && !(REPLAY_FAULTS as readonly string[]).includes(k))
    .map(([k]) => k);
}

export interface ReplayPlan {
  /** Wait before the response headers (recorded time, scaled). */
  headersDelayMs: number;
  /** Response headers to send: the recorded ones minus hop-by-hop (and a length the faults break). */
  headers: Record<string, string>;
  steps: StreamStep[];
}

type Action =
  | { kind: 'stall'; ms: number | undefined }
  | { kind: 'disconnect' }
  | { kind: 'error-event'; frame: string };

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'te', 'trailer', 'upgrade']);

function chunkPolicyOf(plan: FaultPlan, seed: number): ChunkPolicy | undefined {
  const { chunking, splitCrLf, splitUtf8 } = plan;
  if (!chunking && !splitCrLf && !splitUtf8) return undefined;
  const policy: ChunkPolicy = { splitCrLf: splitCrLf ?? false, splitUtf8: splitUtf8 ?? false };
  if (chunking?.mode === 'fixed') policy.size = { fixed: chunking.size };
  if (chunking?.mode === 'random') {
    const minBytes = chunking.minBytes ?? 1;
    policy.size = {
      minBytes,
      maxBytes: Math.max(minBytes, chunking.maxBytes ?? 16),
      random: seededRandom(mixSeed(seed, 2)),
    };
  }
  return policy;
}

/**
 * The steps that replay a recorded response: one write per recorded chunk (unless the
 * faults re-chunk it), a wait before each chunk for the recorded gap divided by the
 * speed, and the recorded ending (a clean end, or a cut for a truncated recording).
 * Frame faults act at the byte offset where the recorded frame ends. Pure.
 */
export function planReplay(
  response: RecordedResponse,
  faults: FaultPlan | undefined,
  seed: number,
  options: ReplayOptions & { requestId?: string } = {},
): ReplayPlan {
  const plan = faults ?? {};
  const speed = options.speed ?? 1;
  const scale = (ms: number) => (speed > 0 ? Math.max(0, ms) / speed : 0);
  const chunks = response.chunks.map((c) => ({ atMs: c.atMs, bytes: bytesOfChunk(c) }));
  const body = Buffer.concat(chunks.map((c) => c.bytes));
  const isSse = (response.headers['content-type'] ?? '').toLowerCase().startsWith('text/event-stream');
  const frameEnds = isSse ? locateFrames(body).frames.map((f) => f.end) : [];
  const eol = body.includes('\r\n') ? '\r\n' : '\n';

  // Byte offset -> what happens once the body has been written up to it.
  const actions = new Map<number, Action[]>();
  const at = (offset: number | undefined, action: Action) => {
    if (offset === undefined) return;
    const list = actions.get(offset) ?? [];
    list.push(action);
    actions.set(offset, list);
  };
  const afterFrames = (n: number): number | undefined =>
    n === 0 ? 0 : n <= frameEnds.length ? frameEnds[n - 1] : undefined;
  if (isSse && plan.stall) at(afterFrames(plan.stall.afterFrame), { kind: 'stall', ms: plan.stall.ms });
  if (isSse && plan.errorEvent) {
    const { errorType = 'overloaded_error', message = 'Overloaded' } = plan.errorEvent;
    const data = {
      type: 'error',
      error: { type: errorType, message },
      ...(options.requestId !== undefined && { request_id: options.requestId }),
    };
    at(afterFrames(plan.errorEvent.atFrame), {
      kind: 'error-event',
      frame: encodeFrame('error', JSON.stringify(data), eol),
    });
  }
  if (isSse && plan.disconnectAfterFrame !== undefined)
    at(afterFrames(plan.disconnectAfterFrame), { kind: 'disconnect' });
  if (options.cutAfterBytes !== undefined && options.cutAfterBytes < body.length) {
    at(options.cutAfterBytes, { kind: 'disconnect' });
  }
  const cutsBody = [...actions.values()].some((list) => list.some((a) => a.kind !== 'stall'));

  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (HOP_BY_HOP.has(name)) continue;
    if (name === 'content-length' && (cutsBody || response.end !== 'complete')) continue;
    headers[name] = value;
  }

  const steps: StreamStep[] = [];
  const policy = chunkPolicyOf(plan, seed);
  const chunker = policy && new ByteChunker(policy);
  let written = 0;
  let framesDone = 0;
  const write = (data: Uint8Array) => {
    if (data.length === 0) return;
    written += data.length;
    while (framesDone < frameEnds.length && frameEnds[framesDone]! <= written) framesDone++;
    steps.push({ kind: 'write', data, framesDone });
  };
  const writePiece = (data: Uint8Array) => {
    if (chunker) for (const piece of [...chunker.push(data), ...chunker.flush()]) write(piece);
    else write(data);
  };
  /** Runs the actions due at `offset`; false when the stream ends there. */
  const act = (offset: number): boolean => {
    for (const action of actions.get(offset) ?? []) {
      switch (action.kind) {
        case 'stall':
          steps.push(action.ms === undefined ? { kind: 'stall' } : { kind: 'wait', ms: action.ms });
          break;
        case 'disconnect':
          steps.push({ kind: 'disconnect' });
          return false;
        case 'error-event':
          write(Buffer.from(action.frame));
          steps.push({ kind: 'end' });
          return false;
      }
    }
    return true;
  };

  if (!act(0)) return { headersDelayMs: scale(response.headersAtMs), headers, steps };
  let previousAt = response.headersAtMs;
  let offset = 0;
  for (const chunk of chunks) {
    const gap = scale(chunk.atMs - previousAt);
    previousAt = Math.max(previousAt, chunk.atMs);
    if (gap > 0) steps.push({ kind: 'wait', ms: gap });
    else if (speed === 0 && steps.length > 0) steps.push({ kind: 'flush' });
    // Split the chunk where actions fall inside it.
    let from = 0;
    const due = [...actions.keys()]
      .filter((o) => o > offset && o <= offset + chunk.bytes.length)
      .sort((a, b) => a - b);
    for (const o of due) {
      writePiece(chunk.bytes.subarray(from, o - offset));
      from = o - offset;
      if (!act(o)) return { headersDelayMs: scale(response.headersAtMs), headers, steps };
    }
    writePiece(chunk.bytes.subarray(from));
    offset += chunk.bytes.length;
  }
  const tail = scale(response.endAtMs - previousAt);
  if (tail >= 1) steps.push({ kind: 'wait', ms: tail });
  // A recording that did not end cleanly ends the same way: the connection is cut.
  steps.push(response.end === 'complete' ? { kind: 'end' } : { kind: 'disconnect' });
  return { headersDelayMs: scale(response.headersAtMs), headers, steps };
}
