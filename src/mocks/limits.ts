import { jsonDepth } from '../protocol/json/bounded.js';

/**
 * What a mock's journal keeps. A journal records what clients sent so that tests can
 * judge it afterwards, but a client (or a flood) must not be able to fill the mock's
 * memory through it: entries are bounded in count and in bytes, and each body in bytes.
 */
export interface JournalLimits {
  /** Entries kept; the oldest are forgotten first. */
  readonly entries: number;
  /** Bytes of bodies and headers kept in all; the oldest entries are forgotten first. */
  readonly totalBytes: number;
  /** Bytes of one body (or message text) kept; a longer one is cut, with a note of its size. */
  readonly bodyBytes: number;
}

/** 10,000 entries, 64 MiB in all, 1 MiB per body. */
export const DEFAULT_JOURNAL_LIMITS: JournalLimits = {
  entries: 10_000,
  totalBytes: 64 * 1024 * 1024,
  bodyBytes: 1024 * 1024,
};

/**
 * Messages of one JSON-RPC batch a mock answers: 1,000. Each answered message is a journal entry,
 * and a mock answers a batch in one go, so a larger batch could push the journal's oldest
 * entries (the client's initialize) out before anything could stop its client; a tenth of
 * DEFAULT_JOURNAL_LIMITS.entries leaves the start kept. A larger batch is refused as a whole with
 * one Invalid Request error, id null, as JSON-RPC 2.0 answers a batch that is invalid as a whole
 * (an empty one); no client needs a thousand messages in one batch to make a tool call.
 */
export const MAX_BATCH_MESSAGES = 1_000;

/** Why a parsed JSON-RPC body is refused whole (a batch of more than MAX_BATCH_MESSAGES), or undefined. */
export function batchProblem(value: unknown, limit: number = MAX_BATCH_MESSAGES): string | undefined {
  return Array.isArray(value) && value.length > limit
    ? `a batch of ${value.length} messages, more than the ${limit} a wirecheck mock answers in one batch (MAX_BATCH_MESSAGES): refused whole, none of its messages answered`
    : undefined;
}

/** What an entry costs besides its body and headers (its fields, the list slot). */
export const ENTRY_OVERHEAD_BYTES = 512;

/** A journal's limits from partial ones (each limit a whole number, 0 allowed). */
export function journalLimits(given: Partial<JournalLimits> = {}): JournalLimits {
  return { ...DEFAULT_JOURNAL_LIMITS, ...given };
}

/**
 * An append-only list that forgets its oldest items when it holds more than `entries`
 * items or more than `totalBytes` bytes. Trimming is amortized O(1): the list is compacted
 * only once a quarter of it is forgotten.
 */
export class BoundedLog<T> {
  private items: T[] = [];
  private sizes: number[] = [];
  private head = 0;
  private bytes = 0;
  private forgotten = 0;

  constructor(private readonly limits: Pick<JournalLimits, 'entries' | 'totalBytes'>) {}

  push(item: T, bytes: number): void {
    this.items.push(item);
    this.sizes.push(bytes);
    this.bytes += bytes;
    this.trim();
  }

  /** The item's cost changed (a body was attached later). */
  grow(item: T, bytes: number): void {
    const at = this.items.lastIndexOf(item);
    if (at < this.head) return;
    this.sizes[at] = (this.sizes[at] ?? 0) + bytes;
    this.bytes += bytes;
    this.trim();
  }

  /** Items kept, oldest first (a copy). */
  list(): T[] {
    return this.items.slice(this.head);
  }

  get size(): number {
    return this.items.length - this.head;
  }

  /** Bytes of the items kept. */
  get totalBytes(): number {
    return this.bytes;
  }

  /** Items forgotten because of the limits since creation or the last clear. */
  get dropped(): number {
    return this.forgotten;
  }

  clear(): void {
    this.items = [];
    this.sizes = [];
    this.head = 0;
    this.bytes = 0;
    this.forgotten = 0;
  }

  private trim(): void {
    while (this.size > 0 && (this.size > this.limits.entries || this.bytes > this.limits.totalBytes)) {
      this.bytes -= this.sizes[this.head] ?? 0;
      // Released now, not at the next compaction.
      this.items[this.head] = undefined as T;
      this.head++;
      this.forgotten++;
    }
    if (this.head > 64 && this.head * 4 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.sizes = this.sizes.slice(this.head);
      this.head = 0;
    }
  }
}

/**
 * Deepest nesting of arrays and objects a mock accepts in a JSON body or message: 1,000.
 * The common ceiling of server-side JSON parsers (Jackson's default maximum nesting depth
 * is 1,000; CPython's json stops at its recursion limit of 1,000; orjson at 1,024), so a
 * body a mock refuses is one that common API stacks refuse too; and far below the depth at
 * which JavaScript's own JSON.stringify overflows its stack (about 4,400 here), so whatever
 * a mock keeps can be serialized by any reader. The depth is measured by a linear scan of
 * the text before it is parsed (src/protocol/json/bounded.ts).
 */
export const MAX_BODY_DEPTH = 1_000;

/** The longest prefix of `text` of at most `limit` bytes of UTF-8, never cutting a character. */
export function utf8Prefix(text: string, limit: number): string {
  return utf8BytesPrefix(Buffer.from(text), limit);
}

/** The first `limit` bytes of UTF-8 `bytes` as text, cut before a character that would be split. */
export function utf8BytesPrefix(bytes: Buffer, limit: number): string {
  let end = Math.min(limit, bytes.length);
  // Back off over continuation bytes (10xxxxxx) to the start of the character cut.
  while (end > 0 && end < bytes.length && (bytes[end]! & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8');
}

/** Why a JSON text is refused before it is parsed (nested deeper than MAX_BODY_DEPTH), or undefined. */
export function depthProblem(text: string): string | undefined {
  // A text cannot nest deeper than half its length: short ones need no scan.
  if (text.length <= MAX_BODY_DEPTH * 2) return undefined;
  const { exceededAt } = jsonDepth(text, MAX_BODY_DEPTH);
  return exceededAt < 0
    ? undefined
    : `JSON nested more than ${MAX_BODY_DEPTH} levels deep (at offset ${exceededAt}): refused before parsing`;
}
