import {
  BoundedLog,
  depthProblem,
  ENTRY_OVERHEAD_BYTES,
  type JournalLimits,
  journalLimits,
  utf8Prefix,
} from '../limits.js';
import { JournalSecrets, scrubEntry } from './journal-secrets.js';

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
  /** The session id (UNNAMED_SESSION when the message named none), or `stdio`. */
  readonly session: string;
  readonly transport: 'stdio' | 'sse' | 'http';
  /** Seen from the mock: `received` from the client, `sent` to it. */
  readonly direction: 'received' | 'sent';
  /**
   * `message`: one JSON-RPC message (or a line/body that should have been one); `endpoint`:
   * the SSE endpoint event; `stream-open`/`closed`: an SSE stream or stdio session began/ended;
   * `banner`: a non-JSON line the mock wrote on stdout (fault); `journal-full`: the last line
   * of a journal file that reached its size (command.ts), the entries after it not written.
   */
  readonly kind: 'message' | 'endpoint' | 'stream-open' | 'closed' | 'banner' | 'journal-full';
  /** The text as it crossed the wire (cut after the journal's bodyBytes, see `truncated`). */
  readonly text: string;
  /** `text` was cut: the journal keeps at most JournalLimits.bodyBytes of one message. */
  readonly truncated?: { readonly bytes: number };
  /** The parsed JSON, when `text` was JSON. */
  readonly value?: unknown;
  /** Why `text` is not JSON, when it is not. */
  readonly parseError?: string;
  /** The HTTP request that carried a received message or opened a stream (credential headers redacted). */
  readonly http?: {
    readonly method: string;
    readonly url: string;
    readonly status?: number;
    readonly headers?: Readonly<Record<string, string>>;
    /**
     * Ms from the request's headers to the end of its body: the request began to arrive at
     * `atMs - bodyMs`. Two requests in flight at once may arrive in another order than sent.
     */
    readonly bodyMs?: number;
  };
  /**
   * Streamable HTTP: a GET resuming a stream the mock dropped (`dropAnswerStream`): the
   * `retry` (ms) it sent before the drop and the ms from the drop to this GET's arrival
   * (monotonic clock), so a check can judge whether the client waited.
   */
  readonly resume?: { readonly retryMs: number; readonly sinceDropMs: number };
}

/**
 * An entry's HTTP request as recorded: `headersAt` is when its headers arrived (performance.now()),
 * from which the journal works out `bodyMs` with the same clock reading that dates the entry, so
 * `atMs - bodyMs` is the headers' arrival exactly (two readings apart erred by up to 200 ms under
 * load, enough to turn which of two requests began first).
 */
export type ToolJournalHttpInput = Omit<NonNullable<ToolJournalEntry['http']>, 'bodyMs'> & {
  readonly headersAt?: number;
};

export type ToolJournalInput = Omit<ToolJournalEntry, 'seq' | 'at' | 'atMs' | 'http'> & {
  readonly http?: ToolJournalHttpInput;
};

/**
 * The session the mocks journal a message under when it named none (Streamable HTTP: no
 * Mcp-Session-Id; SSE: no sessionId).
 */
export const UNNAMED_SESSION = '(none)';

/**
 * An append-only journal, bounded (JournalLimits: the oldest entries are forgotten first,
 * a long message is cut with a note of its size); `onEntry` sees each entry as it is
 * recorded (e.g. to append it to a file).
 */
export class ToolJournal {
  private readonly list: BoundedLog<ToolJournalEntry>;
  private readonly limits: JournalLimits;
  private readonly started = performance.now();
  private readonly listeners = new Set<(entry: ToolJournalEntry) => void>();
  private readonly secretListeners = new Set<(secrets: readonly string[]) => void>();
  private nextSeq = 0;

  constructor(onEntry?: (entry: ToolJournalEntry) => void, limits: Partial<JournalLimits> = {}) {
    if (onEntry) this.listeners.add(onEntry);
    this.limits = journalLimits(limits);
    this.list = new BoundedLog(this.limits);
  }

  /** Secret values seen in requests (journal-secrets.ts), scrubbed from the entries recorded. */
  private readonly secrets = new JournalSecrets();

  /** Learn secret values to scrub from the entries recorded from now on (the newest kept, the oldest forgotten). */
  learnSecrets(secrets: readonly string[]): void {
    this.secrets.learn(secrets);
    this.tellSecrets(secrets);
  }

  /**
   * Call `listener` with the secret values of every later request (credential headers and query
   * parameters): a report shows what a client printed and sent, and must hide them there too.
   * Returns the function that stops it.
   */
  subscribeSecrets(listener: (secrets: readonly string[]) => void): () => void {
    this.secretListeners.add(listener);
    return () => this.secretListeners.delete(listener);
  }

  private tellSecrets(secrets: readonly string[]): void {
    if (secrets.length === 0) return;
    for (const l of this.secretListeners) l(secrets);
  }

  /**
   * Record an entry, scrubbed of every secret known: `own`, those of the request that carried
   * or caused it, are scrubbed whatever was learned since, and kept for the entry's session.
   */
  record(raw: ToolJournalInput, own?: readonly string[]): ToolJournalEntry {
    const now = performance.now();
    if (own !== undefined) this.tellSecrets(own);
    const { http, ...scrubbed } = scrubEntry(raw, this.secrets.of(raw.session, own));
    const input = http === undefined ? scrubbed : { ...scrubbed, http: timedHttp(http, now) };
    const kept = keptText(input.text, this.limits.bodyBytes);
    const stamp = { seq: this.nextSeq++, at: Date.now(), atMs: thousandths(now - this.started) };
    // A cut message keeps no parsed value: its text is what the journal says it was.
    const { value: _value, ...withoutValue } = input;
    const entry: ToolJournalEntry =
      kept === undefined
        ? { ...stamp, ...input }
        : { ...stamp, ...withoutValue, text: kept.text, truncated: { bytes: kept.bytes } };
    // The parsed value costs about as much as its text again.
    this.list.push(entry, ENTRY_OVERHEAD_BYTES + entry.text.length * 2 + headerBytes(entry.http?.headers));
    for (const l of this.listeners) l(entry);
    return entry;
  }

  /** Every entry kept, oldest first (a copy). */
  entries(): ToolJournalEntry[] {
    return this.list.list();
  }

  /** Entries kept. */
  get size(): number {
    return this.list.size;
  }

  /** Entries forgotten because of the limits. */
  get dropped(): number {
    return this.list.dropped;
  }

  /** What the entries kept cost against JournalLimits.totalBytes. */
  get totalBytes(): number {
    return this.list.totalBytes;
  }

  /** The journal's limits. */
  get bounds(): JournalLimits {
    return this.limits;
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
    const found = this.list.list().find(predicate);
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

/** `text` cut to `limit` bytes with its size, or undefined when it fits. */
function keptText(text: string, limit: number): { text: string; bytes: number } | undefined {
  // A UTF-16 unit is at most 3 bytes of UTF-8: most texts need no count at all.
  if (text.length * 3 <= limit) return undefined;
  const bytes = Buffer.byteLength(text);
  if (bytes <= limit) return undefined;
  return { text: utf8Prefix(text, limit), bytes };
}

function headerBytes(headers: Readonly<Record<string, string>> | undefined): number {
  let n = 0;
  if (headers) for (const [k, v] of Object.entries(headers)) n += k.length + v.length;
  return n;
}

/** A journal entry for one line or body of text: parsed when it is JSON (and not nested too deep). */
export function messageEntry(
  text: string,
  rest: Omit<ToolJournalInput, 'text' | 'value' | 'parseError' | 'kind'>,
): ToolJournalInput {
  const deep = depthProblem(text);
  if (deep !== undefined) return { ...rest, kind: 'message', text, parseError: deep };
  try {
    return { ...rest, kind: 'message', text, value: JSON.parse(text) as unknown };
  } catch (e) {
    return { ...rest, kind: 'message', text, parseError: (e as Error).message };
  }
}

/** `ms` rounded to the microsecond, as the journal keeps times. */
function thousandths(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

/** The entry's HTTP request with `bodyMs` from its headers' arrival to `now`, the entry's own time. */
function timedHttp(http: ToolJournalHttpInput, now: number): NonNullable<ToolJournalEntry['http']> {
  const { headersAt, ...rest } = http;
  return headersAt === undefined ? rest : { ...rest, bodyMs: thousandths(now - headersAt) };
}
