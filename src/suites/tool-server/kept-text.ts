/**
 * What the suite keeps whole of what a target sent, counted for the whole process, not per
 * session. Each session's own budgets (PEER_LIMITS, the channels' kept-frame and kept-message
 * bounds) hold one session, and a server that floods every session held one set of them per
 * open session: sending 64 KiB notifications before every answer, it exhausted a 256 MB heap
 * in the Streamable HTTP checks within 10 s, and grew the whole suite past 3.6 GB RSS to a
 * heap limit, with no report.
 *
 * Each session keeps its first `floor` characters whole whatever the others keep, so a
 * session that is not flooded loses nothing to one that is; past its floor, a session keeps
 * text whole only while the shared `pool` has room, and what did not fit is kept as the
 * session's own bounds say (a preview, a count). A closed session gives its share back.
 */
export const KEPT_TEXT_LIMITS = {
  /** Characters each session keeps whole before it draws on the pool (2 Mi): a message of 1 MiB fits whole. */
  floor: 2 * 1024 * 1024,
  /** Characters the sessions of the process keep whole past their floors, together (32 Mi). */
  pool: 32 * 1024 * 1024,
} as const;

/** The characters kept whole past the sessions' floors, shared by every session of the process. */
export class KeptTextPool {
  private used = 0;

  constructor(readonly limits: { readonly floor: number; readonly pool: number } = KEPT_TEXT_LIMITS) {}

  /** A session's account on this pool. */
  account(): KeptTextAccount {
    return new KeptTextAccount(this);
  }

  /** Characters of the pool in use now. */
  inUse(): number {
    return this.used;
  }

  /** @internal Takes `chars` from the pool if they fit. */
  draw(chars: number): boolean {
    if (this.used + chars > this.limits.pool) return false;
    this.used += chars;
    return true;
  }

  /** @internal Gives `chars` back. */
  giveBack(chars: number): void {
    this.used = Math.max(0, this.used - chars);
  }
}

/** One session's share: its floor, then what it drew from the pool. */
export class KeptTextAccount {
  private own = 0;
  private drawn = 0;
  private released = false;

  constructor(private readonly pool: KeptTextPool) {}

  /** Whether `chars` more may be kept whole; if so they are counted. */
  take(chars: number): boolean {
    if (this.released) return false;
    if (this.own + chars <= this.pool.limits.floor) {
      this.own += chars;
      return true;
    }
    if (!this.pool.draw(chars)) return false;
    this.drawn += chars;
    return true;
  }

  /** The session closed: what it drew goes back to the pool, and it keeps nothing more whole. */
  release(): void {
    this.released = true;
    this.pool.giveBack(this.drawn);
    this.drawn = 0;
  }
}

/** The pool of this process: every session of every suite run draws on it. */
export const keptTextPool = new KeptTextPool();
