import {
  BoundedLog,
  ENTRY_OVERHEAD_BYTES,
  type JournalLimits,
  journalLimits,
  utf8Prefix,
} from '../limits.js';

/** How the request authenticated: `x-api-key` (the spec), `Authorization: Bearer` (SDK 1.x), or neither. */
export type AuthScheme = 'x-api-key' | 'bearer' | 'none';

/** A header that can carry the key: `x-api-key`, or `Authorization` with the Bearer scheme. */
export type KeyHeader = 'x-api-key' | 'bearer';

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
  /**
   * Header names lower-cased, values as sent (a repeated header joined with ", "), except
   * credentials: `x-api-key`, `Authorization` (its scheme kept: `Bearer [redacted]`),
   * `Cookie` and every header named like a credential are `[redacted]`, and the key the
   * request presented is scrubbed from the others. `auth` and `configuredKeyIn` say what
   * the credentials were.
   */
  headers: Record<string, string>;
  /**
   * Parsed JSON body (parsed again from the kept text at each read: the journal keeps text,
   * whose size it can count); the raw text when it was not JSON or was cut (see
   * `bodyTruncated`); undefined when none was read. The key the request presented is
   * scrubbed from it, and in JSON the string values of credential-named fields are
   * `[redacted]`.
   */
  body: unknown;
  /** The body was longer than the journal keeps (JournalLimits.bodyBytes): `body` is its first bytes, as text. */
  bodyTruncated?: { bytes: number };
  /**
   * The body was not kept at all: the request presented more distinct secret values than a
   * body is scrubbed of (MAX_BODY_SECRETS), so `body` is a `[redacted: ...]` note saying why,
   * never the request's. Nothing can be judged of such a body; `bytes` is its size, `secrets`
   * how many values it would have been scrubbed of.
   */
  bodyWithheld?: { bytes: number; secrets: number };
  /** Why the body was refused (400 message), if it was. */
  bodyError?: string;
  /**
   * Why the mock did not read the body as its Content-Encoding says: a coding it does not decode
   * (415), data that does not decode (400), or a body that decodes past the mock's body limit
   * (413, whose size as sent may be far below it). Whether the real API takes a coded body is not
   * verified, so what the client meant to send is not known, and no check judges it.
   */
  bodyUndecoded?: string;
  /** Why the real API would refuse the body that the mock served anyway (its `admit` option). */
  realApiRefusal?: string;
  /**
   * Why the mock cut a stream it could not go on writing after the headers had gone out (the
   * scenario's reply could not be encoded): outcome `disconnected`, and this says why.
   */
  streamError?: string;
  /** Arrival time, epoch ms. */
  receivedAt: number;
  /** Arrival time on the monotonic clock (performance.now()), ms. */
  receivedAtMono: number;
  auth: AuthScheme;
  /**
   * The headers that carried the key the mock was started with (its `apiKey` option):
   * how a test asks "did the client send the right key" now that the journal keeps no key.
   * Empty when the mock has no `apiKey` or no header carried it.
   */
  configuredKeyIn: KeyHeader[];
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

/** The messages operation the spec gives: `POST {base_url}/v1/messages`. */
export const MESSAGES_PATH = '/v1/messages';

/** The request went to `POST /v1/messages` (a query string, such as the SDK's `?beta=true`, aside). */
export function atMessagesEndpoint(entry: Pick<JournalEntry, 'method' | 'url'>): boolean {
  return entry.method === 'POST' && pathOf(entry) === MESSAGES_PATH;
}

/**
 * Paths of the real API's other operations (the spec: "Other endpoints of the messages
 * service: not shown"): token counting, batches, models, files. A client may call them beside
 * the messages operation (a token count before each request, say); such a request is not the
 * messages request sent to a wrong endpoint.
 */
const OTHER_API_OPERATIONS: readonly RegExp[] = [
  /^\/v1\/messages\/count_tokens$/,
  /^\/v1\/messages\/batches(\/.*)?$/,
  /^\/v1\/models(\/.*)?$/,
  /^\/v1\/files(\/.*)?$/,
];

/** Whether `entry` went to another operation of the real API than the messages one. */
export function atOtherApiOperation(entry: Pick<JournalEntry, 'url'>): boolean {
  const path = pathOf(entry);
  return OTHER_API_OPERATIONS.some((operation) => operation.test(path));
}

/** The path of the request target, its query string left out. */
export function pathOf(entry: Pick<JournalEntry, 'url'>): string {
  return entry.url.split('?')[0] ?? '';
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
  reject: (error: unknown) => void;
}

/** A kept body: its text and whether that text is the JSON the request sent; or a value a caller set. */
type KeptBody = { readonly text: string; readonly json: boolean } | { readonly value: unknown };

/** The body of each entry made by journalEntry, read by its `body` accessor. */
const keptBodies = new WeakMap<object, KeptBody>();

function bodyOf(entry: object): unknown {
  const kept = keptBodies.get(entry);
  if (kept === undefined) return undefined;
  if ('value' in kept) return kept.value;
  return kept.json ? JSON.parse(kept.text) : kept.text;
}

/**
 * The `body` accessor of every entry: the same two functions for all, so defining it keeps
 * an entry's fast shape (an accessor written in an object literal would turn each entry
 * into a slow dictionary object). Assigning `body` keeps the value given.
 */
const BODY_ACCESSOR: PropertyDescriptor = {
  enumerable: true,
  configurable: true,
  get(this: object): unknown {
    return bodyOf(this);
  },
  set(this: object, value: unknown) {
    keptBodies.set(this, { value });
  },
};

/** A journal entry whose `body` is read from what the journal keeps (Journal.setBody). */
export function journalEntry(fields: Omit<JournalEntry, 'body'>): JournalEntry {
  const entry = { ...fields } as JournalEntry;
  Object.defineProperty(entry, 'body', BODY_ACCESSOR);
  return entry;
}

/**
 * The requests a mock received, in arrival order, within JournalLimits: at most `entries`
 * entries and `totalBytes` of bodies and headers (the oldest are forgotten first), each
 * body cut after `bodyBytes` with a note of its size. So neither a benchmark of a million
 * requests nor a flood of 30 MB bodies can fill the mock's memory through its journal.
 * Entries are live: the route updates an entry as its response progresses and calls
 * `changed(entry)`, which wakes waiters.
 */
export class Journal {
  readonly limits: JournalLimits;
  private list: BoundedLog<JournalEntry>;
  private waiters = new Set<Waiter>();
  private arrivals = new Set<(entry: JournalEntry) => void>();

  /** @param limits the entry count alone (as before), or any of JournalLimits; the rest default. */
  constructor(limits: number | Partial<JournalLimits> = {}) {
    this.limits = journalLimits(typeof limits === 'number' ? { entries: limits } : limits);
    this.list = new BoundedLog(this.limits);
  }

  /** How many entries are kept at most. */
  get limit(): number {
    return this.limits.entries;
  }

  /** The recorded entries, oldest first (a copy of the list; the entries are live). */
  entries(): JournalEntry[] {
    return this.list.list();
  }

  get size(): number {
    return this.list.size;
  }

  /** Entries forgotten because of the limits since the journal was created or cleared. */
  get dropped(): number {
    return this.list.dropped;
  }

  record(entry: JournalEntry): JournalEntry {
    let bytes = ENTRY_OVERHEAD_BYTES + entry.url.length;
    for (const [k, v] of Object.entries(entry.headers)) bytes += k.length + v.length;
    this.list.push(entry, bytes);
    for (const listener of this.arrivals) listener(entry);
    this.changed(entry);
    return entry;
  }

  /**
   * Call `listener` with every entry recorded from now on, as its request arrives (before its
   * body is read). Returns the function that stops it.
   */
  onArrival(listener: (entry: JournalEntry) => void): () => void {
    this.arrivals.add(listener);
    return () => this.arrivals.delete(listener);
  }

  /**
   * Keep the request's body with `entry`: its text (cut after `bodyBytes`, with a note of
   * the size), read back as `entry.body`, parsed at each read when it is whole JSON.
   */
  setBody(entry: JournalEntry, text: string, json: boolean): void {
    const cut = text.length * 3 <= this.limits.bodyBytes ? undefined : Buffer.byteLength(text);
    const truncated = cut !== undefined && cut > this.limits.bodyBytes;
    const kept: KeptBody = truncated
      ? { text: utf8Prefix(text, this.limits.bodyBytes), json: false }
      : { text, json };
    if (truncated) entry.bodyTruncated = { bytes: cut };
    // An entry made elsewhere (a plain object with a `body` value) gets the same accessor.
    if (Object.getOwnPropertyDescriptor(entry, 'body')?.get !== BODY_ACCESSOR.get)
      Object.defineProperty(entry, 'body', BODY_ACCESSOR);
    keptBodies.set(entry, kept);
    // Text in V8 is one or two bytes a character: count two.
    this.list.grow(entry, kept.text.length * 2);
  }

  /** The kept body text of an entry and whether it is JSON (for writing the journal out without parsing it). */
  bodyTextOf(entry: JournalEntry): { readonly text: string; readonly json: boolean } | undefined {
    const kept = keptBodies.get(entry);
    return kept === undefined || 'value' in kept ? undefined : kept;
  }

  /**
   * Tell waiters that `entry` was updated. A waiter whose predicate throws is rejected with the
   * error: the route calls this while it serves (after the 200 headers, say), and a waiter's bug
   * thrown there would leave the response hanging and its entry pending.
   */
  changed(entry: JournalEntry): void {
    for (const w of this.waiters) {
      let matched: boolean;
      try {
        matched = w.predicate(entry);
      } catch (e) {
        this.waiters.delete(w);
        w.reject(e);
        continue;
      }
      if (matched) {
        this.waiters.delete(w);
        w.resolve(entry);
      }
    }
  }

  clear(): void {
    this.list.clear();
  }

  /**
   * The first entry (recorded already, or recorded or updated later) that satisfies
   * `predicate`; rejects with JournalTimeoutError after `timeoutMs`, or with what `predicate`
   * threw on an entry updated later.
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
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
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
