/** How the request authenticated: `x-api-key` (the spec), `Authorization: Bearer` (SDK 1.x), or neither. */
export type AuthScheme = 'x-api-key' | 'bearer' | 'none';

/**
 * How a request ended on the server side: still being served, answered completely,
 * the client went away first, the mock cut the connection (fault), or the mock closed.
 */
export type Outcome = 'pending' | 'completed' | 'client-aborted' | 'disconnected' | 'server-closed';

/** One request as the mock received and answered it; recorded before validation. */
export interface JournalEntry {
  /** 0-based arrival index among all requests to this service (the scenario's requestIndex). */
  seq: number;
  /** The `request-id` header of the response. */
  requestId: string;
  method: string;
  url: string;
  /** Header names lower-cased, values as sent (a repeated header joined with ", "). */
  headers: Record<string, string>;
  /** Parsed JSON body; the raw text when it was not JSON; undefined when none was read. */
  body: unknown;
  /** Why the body was refused (400 message), if it was. */
  bodyError?: string;
  /** Arrival time, epoch ms. */
  receivedAt: number;
  /** Arrival time on the monotonic clock (performance.now()), ms. */
  receivedAtMono: number;
  auth: AuthScheme;
  /** The version header that was sent (`service-version` or `anthropic-version`), if any. */
  version: { header: string; value: string } | null;
  /** The body's `stream` flag (true selects SSE). */
  stream: boolean;
  /** Response status, once sent. */
  status?: number;
  /** `error.type` of an error response (HTTP or mid-stream `event: error`). */
  errorType?: string;
  /** Scripted frames written completely. */
  framesWritten: number;
  /** Bytes of the response body written. */
  bytesWritten: number;
  outcome: Outcome;
  clientAborted: boolean;
  /** framesWritten when the client went away. */
  abortedAtFrame?: number;
  /** Seed the stream's faults were planned with (reproduces the exact bytes). */
  seed?: number;
  /** When the response ended, monotonic ms. */
  endedAtMono?: number;
}

export class JournalTimeoutError extends Error {
  override readonly name = 'JournalTimeoutError';
  constructor(
    readonly timeoutMs: number,
    readonly seen: number,
  ) {
    super(`no journal entry matched within ${timeoutMs} ms (${seen} entries recorded)`);
  }
}

interface Waiter {
  predicate: (entry: JournalEntry) => boolean;
  resolve: (entry: JournalEntry) => void;
}

/**
 * The requests a mock received, in arrival order. Entries are live: the route updates
 * an entry as its response progresses and calls `changed(entry)`, which wakes waiters.
 */
export class Journal {
  private list: JournalEntry[] = [];
  private waiters = new Set<Waiter>();
  private forgotten = 0;

  /**
   * @param limit how many entries to keep (the oldest are forgotten first), so a
   *   benchmark of a million requests does not keep a million requests in memory.
   */
  constructor(readonly limit = 10_000) {}

  /** The recorded entries, oldest first (a copy of the list; the entries are live). */
  entries(): JournalEntry[] {
    return this.list.length > this.limit ? this.list.slice(this.list.length - this.limit) : [...this.list];
  }

  get size(): number {
    return Math.min(this.list.length, this.limit);
  }

  /** Entries forgotten because of the limit since the journal was created or cleared. */
  get dropped(): number {
    return this.forgotten + Math.max(0, this.list.length - this.limit);
  }

  record(entry: JournalEntry): JournalEntry {
    this.list.push(entry);
    // Trimmed in steps, so recording stays O(1) amortized.
    const excess = this.list.length - this.limit;
    if (excess > Math.max(1, this.limit / 4) || (this.limit === 0 && excess > 0)) {
      this.list.splice(0, excess);
      this.forgotten += excess;
    }
    this.changed(entry);
    return entry;
  }

  /** Tell waiters that `entry` was updated. */
  changed(entry: JournalEntry): void {
    for (const w of this.waiters) {
      if (w.predicate(entry)) {
        this.waiters.delete(w);
        w.resolve(entry);
      }
    }
  }

  clear(): void {
    this.list = [];
    this.forgotten = 0;
  }

  /**
   * The first entry (recorded already, or recorded or updated later) that satisfies
   * `predicate`; rejects with JournalTimeoutError after `timeoutMs`.
   */
  waitFor(predicate: (entry: JournalEntry) => boolean, timeoutMs = 5000): Promise<JournalEntry> {
    const found = this.entries().find(predicate);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        predicate,
        resolve: (entry) => {
          clearTimeout(timer);
          resolve(entry);
        },
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(new JournalTimeoutError(timeoutMs, this.size));
      }, timeoutMs);
      this.waiters.add(waiter);
    });
  }
}
