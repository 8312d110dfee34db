import type { DeltaSplits, Message } from '../../protocol/messages/index.js';
import type { LineEnding } from '../../protocol/sse/index.js';
import type { StreamStep } from './plan-stream.js';
import { messageBatches } from './source-frames.js';

interface Entry {
  message: Message;
  splits: DeltaSplits | undefined;
  eol: LineEnding;
  perWrite: number;
  writes: Extract<StreamStep, { kind: 'write' }>[];
  bytes: number;
}

/**
 * Encoded streams of the message replies served more than once (a fixture, a scripted
 * reply returned for every request), so that repeats are written from ready bytes, as
 * fast as a server writing prepared text. Keyed by the identity of the message and
 * splits objects: a scenario must not mutate a message it has returned.
 *
 * Only a message seen a second time is kept (fresh messages per request, as the
 * scripted model makes, would only churn the cache), only when its stream was written
 * whole, and within a byte budget (least recently used first out); a stream larger
 * than half the budget is never kept, so a very long stream is still generated lazily
 * and never held in memory.
 */
export class EncodedStreamCache {
  private entries: Entry[] = [];
  private used = 0;
  private readonly seen = new WeakSet<Message>();

  constructor(readonly budgetBytes: number) {}

  /** Streams kept. */
  get size(): number {
    return this.entries.length;
  }

  /** Bytes kept. */
  get usedBytes(): number {
    return this.used;
  }

  /** The write steps of the stream (from the cache, or generated and maybe kept), then `end`. */
  *steps(
    message: Message,
    splits: DeltaSplits | undefined,
    eol: LineEnding,
    perWrite: number,
  ): Generator<StreamStep> {
    const hit = this.entries.find(
      (e) => e.message === message && e.splits === splits && e.eol === eol && e.perWrite === perWrite,
    );
    if (hit) {
      this.entries.splice(this.entries.indexOf(hit), 1);
      this.entries.push(hit);
      yield* hit.writes;
      yield { kind: 'end' };
      return;
    }
    const keep = this.budgetBytes > 0 && this.seen.has(message);
    this.seen.add(message);
    const writes: Extract<StreamStep, { kind: 'write' }>[] = [];
    let bytes = 0;
    let collecting = keep;
    let done = 0;
    for (const batch of messageBatches(message, splits ?? [], eol, perWrite)) {
      done += batch.frames;
      if (!collecting) {
        yield { kind: 'write', data: batch.bytes, framesDone: done, written: batch };
        continue;
      }
      // A copy of its own: the batch's memory is built on again once released. The same
      // bytes are written now and kept.
      const step = { kind: 'write' as const, data: Buffer.from(batch.bytes), framesDone: done };
      batch.reuse();
      bytes += step.data.length;
      writes.push(step);
      if (bytes > this.budgetBytes / 2) {
        collecting = false;
        writes.length = 0;
      }
      yield step;
    }
    // Reached only when the executor pulled every write: the stream was served whole.
    if (collecting) this.keep({ message, splits, eol, perWrite, writes, bytes });
    yield { kind: 'end' };
  }

  private keep(entry: Entry): void {
    this.entries.push(entry);
    this.used += entry.bytes;
    while (this.used > this.budgetBytes && this.entries.length > 0) {
      this.used -= this.entries.shift()!.bytes;
    }
  }
}
