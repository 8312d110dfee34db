/**
 * The SSE events of one session kept for resumption (Streamable HTTP: a client that lost a stream
 * GETs with `Last-Event-ID` and the server MAY replay what came after it on that stream). Bounded in
 * bytes per session and, through a `ReplayBudget`, for all sessions together: the oldest events go
 * first, and a resumption from an event no longer kept is refused rather than replayed with a gap.
 *
 * Event ids are `<stream>-<seq>`: unique across the session's streams (the revision text: "globally
 * unique across all streams within that session"), and the id names the stream it came from, so a
 * replay never carries events of another stream.
 */
export interface ReplayEvent {
  readonly stream: number;
  readonly seq: number;
  readonly id: string;
  /** The whole SSE frame as written (`id:`, `event:`, `data:` lines and the blank line). */
  readonly frame: string;
}

export function eventIdOf(stream: number, seq: number): string {
  return `${stream}-${seq}`;
}

/** The stream and sequence number an event id names, or undefined for an id this server never gave. */
export function parseEventId(id: string): { stream: number; seq: number } | undefined {
  const match = /^(\d{1,15})-(\d{1,15})$/.exec(id.trim());
  if (match === null) return undefined;
  return { stream: Number(match[1]), seq: Number(match[2]) };
}

/**
 * What the replay logs of one endpoint keep together. Each session's own limit times the sessions
 * allowed (1 MiB x 10,000) is far past a heap: past this budget the largest logs give up their
 * oldest events first, so one session replaying megabytes does not take the few events of every
 * other session's cut streams.
 */
export class ReplayBudget {
  /** The logs holding at least one event (only they can give anything back). */
  private readonly holding = new Set<ReplayLog>();
  private bytes = 0;

  constructor(readonly limitBytes: number) {}

  get size(): number {
    return this.bytes;
  }

  /** @internal A log's size changed by `delta` (it now holds `now`). */
  changed(log: ReplayLog, delta: number, now: number): void {
    this.bytes += delta;
    if (now > 0) this.holding.add(log);
    else this.holding.delete(log);
  }

  /** @internal Drop the oldest events of the largest logs until the total is within the budget. */
  settle(): void {
    while (this.bytes > this.limitBytes) {
      let largest: ReplayLog | undefined;
      for (const log of this.holding) if (largest === undefined || log.size > largest.size) largest = log;
      if (largest === undefined || !largest.dropOldest()) return;
    }
  }
}

/** Streams read to their end remembered per log (their last event id answers a resumption: nothing after it). */
export const ENDED_STREAMS_KEPT = 64;

export class ReplayLog {
  private readonly events: ReplayEvent[] = [];
  private bytes = 0;
  /** Per stream, the lowest sequence number dropped for room (a resumption before it has a gap). */
  private readonly droppedUpTo = new Map<number, number>();
  /** Streams whose client took every event, with their last sequence number (oldest first). */
  private readonly ended = new Map<number, number>();

  /**
   * `limitBytes` bounds this log; `budget`, when given, bounds it with every other log sharing it
   * (call `clear()` when the log is done with, or the budget counts its events for ever).
   */
  constructor(
    private readonly limitBytes: number,
    private readonly budget?: ReplayBudget,
  ) {}

  add(event: ReplayEvent): void {
    if (this.limitBytes <= 0 || (this.budget !== undefined && this.budget.limitBytes <= 0)) return;
    this.events.push(event);
    this.resize(event.frame.length);
    while (this.bytes > this.limitBytes && this.dropOldest()) {}
    this.budget?.settle();
  }

  /**
   * Drop the oldest event kept, noting the gap it leaves in its stream. False when there was none.
   * @internal (the budget takes room back through it)
   */
  dropOldest(): boolean {
    const oldest = this.events.shift();
    if (oldest === undefined) return false;
    this.resize(-oldest.frame.length);
    this.droppedUpTo.set(oldest.stream, Math.max(this.droppedUpTo.get(oldest.stream) ?? -1, oldest.seq));
    return true;
  }

  /**
   * The events of `stream` after `seq`, or undefined when some of them were dropped for room (the
   * replay would have a gap).
   */
  after(stream: number, seq: number): ReplayEvent[] | undefined {
    const last = this.ended.get(stream);
    if (last !== undefined) return seq >= last ? [] : undefined;
    const dropped = this.droppedUpTo.get(stream);
    if (dropped !== undefined && dropped > seq) return undefined;
    return this.events.filter((e) => e.stream === stream && e.seq > seq);
  }

  /** Forget a stream whose events can no longer be asked for. */
  forget(stream: number): void {
    let freed = 0;
    for (let i = this.events.length - 1; i >= 0; i--) {
      const e = this.events[i]!;
      if (e.stream !== stream) continue;
      freed += e.frame.length;
      this.events.splice(i, 1);
    }
    if (freed > 0) this.resize(-freed);
    this.droppedUpTo.delete(stream);
  }

  /**
   * A stream the client read to its end (event `lastSeq` the last): nothing is left to resume, so its
   * events go. A resumption after its last event is still answered (with nothing); one from before
   * it is refused as a gap. The last ENDED_STREAMS_KEPT such streams are remembered.
   */
  endStream(stream: number, lastSeq: number): void {
    this.forget(stream);
    this.ended.set(stream, lastSeq);
    for (const oldest of this.ended.keys()) {
      if (this.ended.size <= ENDED_STREAMS_KEPT) break;
      this.ended.delete(oldest);
    }
  }

  /** Whether `stream` was read to its end and is remembered so. */
  hasEnded(stream: number): boolean {
    return this.ended.has(stream);
  }

  /** Forget every stream (the session ended): its room goes back to the budget. */
  clear(): void {
    this.events.length = 0;
    this.droppedUpTo.clear();
    this.ended.clear();
    if (this.bytes > 0) this.resize(-this.bytes);
  }

  get size(): number {
    return this.bytes;
  }

  private resize(delta: number): void {
    this.bytes += delta;
    this.budget?.changed(this, delta, this.bytes);
  }
}
