import { once } from 'node:events';
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { PARTIAL_SUFFIX } from '../../fixtures/exchange-file.js';
import { writeFixtureFile } from '../../fixtures/format.js';
import type { RecordedChunk, ToolMessage, ToolSession } from '../../fixtures/schema.js';
import {
  journalLine,
  sessionOfJournal,
  TOOL_SESSION_JOURNAL,
  type ToolJournalEntry,
  type ToolSessionEnd,
  type ToolSessionHead,
  type ToolStreamHead,
} from '../../fixtures/tool-session-journal.js';

/** Where recorded sessions go. */
export interface SessionSink {
  /**
   * Write each session there as `<time>-<transport>-<pid>-<counter>.json` (created if
   * missing), journaled while it happens as `<name>.json.partial` (see
   * fixtures/tool-session-journal.ts): memory holds no session, and a recorder killed
   * mid-session leaves the session so far.
   */
  readonly outDir?: string;
  /**
   * Called once per session, after its file (if any) is written; `why` says why part of it was
   * relayed but not recorded (a body it could not decode, or the limit), when that happened.
   */
  readonly onSession?: (session: ToolSession, file: string | undefined, why?: string) => void;
  /** Called when a file cannot be written. */
  readonly onWriteError?: (error: Error, file: string) => void;
  /**
   * Secret values scrubbed from every session wherever they appear, besides the credentials
   * each request presents: e.g. the API keys of the recorder's environment.
   */
  readonly secrets?: readonly (string | undefined)[];
  /**
   * Most bytes of journal recorded of one session (default 64 MiB, RECORD_LIMIT). Past it
   * the recorder still relays everything, but the session's messages and chunks are no
   * longer recorded: the session is marked `truncated` with its `unrecordedBytes` (every
   * transport), and an SSE session's stream ends `truncated`.
   */
  readonly recordLimit?: number;
}

/**
 * An 8 s flood made a 1.1 GB journal, which the recorder could no longer read back as one
 * string when stopped (the session was lost): 64 MiB, the messages proxy's request body
 * limit, is more than any real session and keeps the file under the readers' cap
 * (FIXTURE_READ_LIMIT).
 */
export const RECORD_LIMIT = 64 * 1024 * 1024;

/** What a session ended as: the session (undefined when its journal could not be written) and its file. */
export interface StoredSession {
  readonly session: ToolSession | undefined;
  readonly file: string | undefined;
  /** Bytes of journal left out past `recordLimit` (0 when the whole session was recorded). */
  readonly unrecordedBytes: number;
  /** Why the recording left bytes out, when it did. */
  readonly why?: string;
}

/**
 * One session being recorded. Everything given to it is already redacted: it is written
 * as it comes. Calls after `end` or `discard` are ignored.
 */
export interface SessionLog {
  /** A message; returns its index, for `post`. */
  message(message: ToolMessage): number;
  /** How the POST that carried message `index` was answered. */
  post(index: number, post: NonNullable<ToolMessage['post']>): void;
  /** SSE: the stream's response headers arrived. */
  stream(head: ToolStreamHead): void;
  /** SSE: the `endpoint` event's data, as the server sent it. */
  endpoint(data: string): void;
  /** SSE: one chunk of the stream. */
  chunk(chunk: RecordedChunk): void;
  /**
   * Bytes relayed but not recorded, and why (a body in a coding the recorder does not decode,
   * or that does not decode): the session is marked `truncated` with them in `unrecordedBytes`.
   */
  unrecorded(bytes: number, why: string): void;
  /** Whether the recording limit was passed: nothing more given is recorded. */
  readonly full: boolean;
  /** The session ended: its file is written (with `outDir`) and the sink told. */
  end(end: ToolSessionEnd): Promise<StoredSession>;
  /** Nothing worth keeping (an SSE GET that got no response): the journal is removed. */
  discard(): Promise<void>;
  /** Bytes of journal lines the disk has not taken yet (a caller pauses its source while large). */
  readonly queuedBytes: number;
  /** Resolves when the journal's queue has drained (at once when empty, or failed). */
  drained(): Promise<void>;
}

let counter = 0;

/** Open the log of a session that begins now (its journal file, with `outDir`). */
export function openSessionLog(head: ToolSessionHead, sink: SessionSink): SessionLog {
  let file: string | undefined;
  let journal: WriteStream | undefined;
  let failure: Error | undefined;
  // Without a directory (a library caller) the journal's lines are kept in memory instead.
  const memory: string[] = [];
  if (sink.outDir !== undefined) {
    const stamp = (head.recordedAt ?? new Date().toISOString()).replace(/[:.]/g, '-');
    const n = String(++counter).padStart(4, '0');
    file = join(sink.outDir, `${stamp}-${head.transport}-${process.pid}-${n}.json`);
    try {
      mkdirSync(sink.outDir, { recursive: true });
      journal = createWriteStream(file + PARTIAL_SUFFIX, { flags: 'w' });
      journal.on('error', (e) => (failure ??= e));
    } catch (e) {
      failure = e as Error;
    }
  }
  let messages = 0;
  let over = false;
  const recordLimit = sink.recordLimit ?? RECORD_LIMIT;
  let recordedBytes = 0;
  let unrecorded = 0;
  // Bytes of bodies relayed but not recorded (not decodable): the session is marked, the rest still recorded.
  let relayedOnly = 0;
  let why: string | undefined;
  const write = (entry: ToolJournalEntry) => {
    if (over) return;
    const line = journalLine(entry);
    // The head and the end are always written: a cut session still reads as a session.
    if (!('journal' in entry) && !('end' in entry)) {
      const size = Buffer.byteLength(line);
      // Once cut, nothing more is kept, so the session is what came before the cut.
      if (unrecorded > 0 || recordedBytes + size > recordLimit) {
        why ??= `wirecheck record: the session passed the recording limit of ${recordLimit} bytes: what followed was relayed but not recorded`;
        unrecorded += size;
        return;
      }
      recordedBytes += size;
    }
    if (journal !== undefined) journal.write(line);
    else if (file === undefined) memory.push(line);
  };
  const closeJournal = async () => {
    if (journal === undefined) return;
    const stream = journal;
    await new Promise<void>((resolve) => {
      if (stream.closed) resolve();
      else stream.end(() => resolve());
      stream.once('error', () => resolve());
    });
  };
  write({ journal: TOOL_SESSION_JOURNAL, head });
  return {
    message(message) {
      write({ message });
      return messages++;
    },
    post(index, post) {
      write({ post: { index, ...post } });
    },
    stream(streamHead) {
      write({ stream: streamHead });
    },
    endpoint(data) {
      write({ endpoint: data });
    },
    chunk(chunk) {
      write({ chunk });
    },
    unrecorded(bytes, reason) {
      if (over || bytes <= 0) return;
      why ??= reason;
      relayedOnly += bytes;
    },
    get full() {
      return unrecorded > 0;
    },
    async end(given) {
      // A session recorded only in part says so in its file, whatever the transport; a stream so
      // recorded replays as a cut one too: its end is where the recording stopped.
      const end: ToolSessionEnd =
        unrecorded + relayedOnly === 0
          ? given
          : {
              ...given,
              ...(given.stream !== undefined &&
                unrecorded > 0 && { stream: { ...given.stream, end: 'truncated' as const } }),
              unrecordedBytes: unrecorded + relayedOnly,
            };
      write({ end });
      over = true;
      await closeJournal();
      let session: ToolSession | undefined;
      try {
        if (failure !== undefined) throw failure;
        if (file === undefined) {
          session = sessionOfJournal(memory.join(''), 'the recorded session');
        } else {
          session = sessionOfJournal(await readFile(file + PARTIAL_SUFFIX, 'utf8'), file + PARTIAL_SUFFIX);
          await writeFixtureFile(file, session);
          await rm(file + PARTIAL_SUFFIX, { force: true });
        }
      } catch (e) {
        if (file !== undefined) sink.onWriteError?.(e as Error, file);
        if (session !== undefined) sink.onSession?.(session, undefined, why);
        return {
          session,
          file: undefined,
          unrecordedBytes: unrecorded + relayedOnly,
          ...(why !== undefined && { why }),
        };
      }
      sink.onSession?.(session, file, why);
      return { session, file, unrecordedBytes: unrecorded + relayedOnly, ...(why !== undefined && { why }) };
    },
    get queuedBytes() {
      return journal?.writableLength ?? 0;
    },
    async drained() {
      if (journal === undefined || journal.writableLength === 0 || failure !== undefined) return;
      // An error ends the wait too: the journal's failure is told at the end.
      await once(journal, 'drain').catch(() => {});
    },
    async discard() {
      over = true;
      await closeJournal();
      if (file !== undefined) await rm(file + PARTIAL_SUFFIX, { force: true });
    },
  };
}
