/**
 * The SSE events of one session kept for resumption (Streamable HTTP: a client that lost a stream
 * GETs with `Last-Event-ID` and the server MAY replay what came after it on that stream). Bounded in
 * bytes per session: the oldest events go first, and a resumption from an event no longer kept is
 * refused rather than replayed with a gap.
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

export class ReplayLog {
  private readonly events: ReplayEvent[] = [];
  private bytes = 0;
  /** Per stream, the lowest sequence number dropped for room (a resumption before it has a gap). */
  private readonly droppedUpTo = new Map<number, number>();

  constructor(private readonly limitBytes: number) {}

  add(event: ReplayEvent): void {
    if (this.limitBytes <= 0) return;
    this.events.push(event);
    this.bytes += event.frame.length;
    while (this.bytes > this.limitBytes && this.events.length > 0) {
      const oldest = this.events.shift()!;
      this.bytes -= oldest.frame.length;
      this.droppedUpTo.set(oldest.stream, Math.max(this.droppedUpTo.get(oldest.stream) ?? -1, oldest.seq));
    }
  }

  /**
   * The events of `stream` after `seq`, or undefined when some of them were dropped for room (the
   * replay would have a gap).
   */
  after(stream: number, seq: number): ReplayEvent[] | undefined {
    const dropped = this.droppedUpTo.get(stream);
    if (dropped !== undefined && dropped > seq) return undefined;
    return this.events.filter((e) => e.stream === stream && e.seq > seq);
  }

  /** Forget a stream whose events can no longer be asked for. */
  forget(stream: number): void {
    for (let i = this.events.length - 1; i >= 0; i--) {
      const e = this.events[i]!;
      if (e.stream !== stream) continue;
      this.bytes -= e.frame.length;
      this.events.splice(i, 1);
    }
    this.droppedUpTo.delete(stream);
  }

  get size(): number {
    return this.bytes;
  }
}
