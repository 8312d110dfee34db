/**
 * What crossed a mock tool server, in order: every message received (recorded before any
 * validation, as raw text) and every message sent, so checks judge the journal afterwards
 * ("mocks record first, assert later").
 */
export interface ToolJournalEntry {
  /** 0-based position in the journal. */
  readonly seq: number;
  /** Epoch ms. */
  readonly at: number;
  /** Ms since the journal was created (monotonic clock). */
  readonly atMs: number;
  /** The SSE session id, or `stdio`. */
  readonly session: string;
  readonly transport: 'stdio' | 'sse';
  /** Seen from the mock: `received` from the client, `sent` to it. */
  readonly direction: 'received' | 'sent';
  /**
   * `message`: one JSON-RPC message (or a line/body that should have been one); `endpoint`:
   * the SSE endpoint event; `stream-open`/`closed`: an SSE stream or stdio session began/ended;
   * `banner`: a non-JSON line the mock wrote on stdout (fault).
   */
  readonly kind: 'message' | 'endpoint' | 'stream-open' | 'closed' | 'banner';
  /** The text as it crossed the wire. */
  readonly text: string;
  /** The parsed JSON, when `text` was JSON. */
  readonly value?: unknown;
  /** Why `text` is not JSON, when it is not. */
  readonly parseError?: string;
  /** The HTTP request that carried a received message or opened a stream. */
  readonly http?: {
    readonly method: string;
    readonly url: string;
    readonly status?: number;
    readonly headers?: Readonly<Record<string, string>>;
  };
}

export type ToolJournalInput = Omit<ToolJournalEntry, 'seq' | 'at' | 'atMs'>;

/** An append-only journal; `onEntry` sees each entry as it is recorded (e.g. to append it to a file). */
export class ToolJournal {
  private readonly list: ToolJournalEntry[] = [];
  private readonly started = performance.now();
  private readonly listeners = new Set<(entry: ToolJournalEntry) => void>();

  constructor(onEntry?: (entry: ToolJournalEntry) => void) {
    if (onEntry) this.listeners.add(onEntry);
  }

  record(input: ToolJournalInput): ToolJournalEntry {
    const entry: ToolJournalEntry = {
      seq: this.list.length,
      at: Date.now(),
      atMs: Math.round((performance.now() - this.started) * 1000) / 1000,
      ...input,
    };
    this.list.push(entry);
    for (const l of this.listeners) l(entry);
    return entry;
  }

  /** Every entry so far, oldest first (a copy). */
  entries(): ToolJournalEntry[] {
    return [...this.list];
  }

  get size(): number {
    return this.list.length;
  }

  /** Call `listener` on every later entry; returns the function that stops it. */
  subscribe(listener: (entry: ToolJournalEntry) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The first entry (already recorded or later) matching `predicate`, or undefined after `timeoutMs`. */
  waitFor(
    predicate: (entry: ToolJournalEntry) => boolean,
    timeoutMs: number,
  ): Promise<ToolJournalEntry | undefined> {
    const found = this.list.find(predicate);
    if (found) return Promise.resolve(found);
    return new Promise((resolve) => {
      const stop = this.subscribe((entry) => {
        if (!predicate(entry)) return;
        clearTimeout(timer);
        stop();
        resolve(entry);
      });
      const timer = setTimeout(() => {
        stop();
        resolve(undefined);
      }, timeoutMs);
    });
  }
}

/** A journal entry for one line or body of text: parsed when it is JSON. */
export function messageEntry(
  text: string,
  rest: Omit<ToolJournalInput, 'text' | 'value' | 'parseError' | 'kind'>,
): ToolJournalInput {
  try {
    return { ...rest, kind: 'message', text, value: JSON.parse(text) as unknown };
  } catch (e) {
    return { ...rest, kind: 'message', text, parseError: (e as Error).message };
  }
}
