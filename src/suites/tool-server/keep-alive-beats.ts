/** Gaps shorter than this between keep-alive beats past the kept frames may be merged. */
export const BEAT_RESOLUTION_MS = 1000;
/** Beats kept past the kept frames: at two a second at most, 83 minutes of a stream. */
export const MAX_KEPT_BEATS = 10_000;

/**
 * The keep-alive beats of an SSE stream past the frames it keeps, thinned to what the
 * keep-alive judgement needs. Both ends of every gap of `resolutionMs` or more are kept and
 * the latest beat is always in view, so any gap longer than `resolutionMs` (the limit is 15 s)
 * measures as it would with every beat kept, and a stream beating without end keeps at most
 * two beats a second. Without it, a stream past its 10,000 kept frames showed no keep-alive
 * at all, and a server that kept beating failed the keep-alive check.
 */
export class KeepAliveBeats<T extends { readonly at: number }> {
  private readonly kept: T[] = [];
  private latest: T | undefined;
  private latestKept = true;
  private lastKeptAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly resolutionMs = BEAT_RESOLUTION_MS,
    private readonly max = MAX_KEPT_BEATS,
  ) {}

  /** A beat the frames kept: gaps after it are measured from it. */
  keptElsewhere(beat: T): void {
    this.latest = beat;
    this.latestKept = true;
    this.lastKeptAt = beat.at;
  }

  /** A beat past the kept frames, in order of arrival. */
  see(beat: T): void {
    if (beat.at - this.lastKeptAt >= this.resolutionMs) {
      // A gap ends here: its start (the beat before, when it was passed by) is kept too.
      if (!this.latestKept && this.latest !== undefined) this.push(this.latest);
      if (beat.at - this.lastKeptAt >= this.resolutionMs && this.push(beat)) {
        this.latest = beat;
        this.latestKept = true;
        return;
      }
    }
    this.latest = beat;
    this.latestKept = false;
  }

  /** The beats past the kept frames to judge by, in order. */
  view(): T[] {
    return this.latestKept || this.latest === undefined ? [...this.kept] : [...this.kept, this.latest];
  }

  private push(beat: T): boolean {
    if (this.kept.length >= this.max) return false;
    this.kept.push(beat);
    this.lastKeptAt = beat.at;
    return true;
  }
}
