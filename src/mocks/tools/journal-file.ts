import { appendFileSync, chmodSync } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import { DEFAULT_JOURNAL_LIMITS } from '../limits.js';
import type { ToolJournalEntry } from './journal.js';

/**
 * The most a journal file holds: the in-memory journal's byte budget. A client that floods the
 * mock cannot fill the disk through it; the file keeps the session's start, where the checks
 * look first, and its last line says how much was left out.
 */
export const JOURNAL_FILE_MAX_BYTES = DEFAULT_JOURNAL_LIMITS.totalBytes;

/**
 * An `onEntry` that appends each entry to `path` as one JSON line, synchronously, so the
 * file is complete up to the last entry even when the mock is killed right after. The file
 * is readable by its owner only (0600): it holds what clients sent, and its entries carry
 * their HTTP headers with credentials redacted, and message contents as they were but for
 * the secret values those headers carried (journal-secrets.ts). Past `maxBytes` (default
 * JOURNAL_FILE_MAX_BYTES) it writes one `journal-full` entry, then nothing.
 */
export function journalFileWriter(
  path: string,
  maxBytes = JOURNAL_FILE_MAX_BYTES,
): (entry: ToolJournalEntry) => void {
  let first = true;
  let written = 0;
  let full = false;
  const append = (line: string) => {
    appendFileSync(path, line, { mode: 0o600 });
    written += Buffer.byteLength(line);
  };
  return (entry) => {
    if (full) return;
    const line = `${JSON.stringify(entry)}\n`;
    if (written + Buffer.byteLength(line) > maxBytes) {
      full = true;
      const note: ToolJournalEntry = {
        seq: entry.seq,
        at: entry.at,
        atMs: entry.atMs,
        session: entry.session,
        transport: entry.transport,
        direction: 'received',
        kind: 'journal-full',
        text: `journal file full (${maxBytes} bytes): entry ${entry.seq} and later ones were not written`,
      };
      append(`${JSON.stringify(note)}\n`);
      return;
    }
    append(line);
    if (first) {
      first = false;
      // A file that existed before keeps its mode through an append: make it private too.
      try {
        chmodSync(path, 0o600);
      } catch {
        // Not ours to change (another user's file we may append to): leave it.
      }
    }
  };
}

/**
 * Read a journal file back (a missing file is an empty journal; a torn last line is dropped).
 * At most `maxBytes` are read (default: a full file and the lines written after it, the
 * SIGTERM note of the stdio mock): a file grown by another writer cannot exhaust the memory.
 */
export async function readJournalFile(
  path: string,
  maxBytes = JOURNAL_FILE_MAX_BYTES + 64 * 1024,
): Promise<ToolJournalEntry[]> {
  let text: string;
  try {
    const file = await open(path, 'r');
    try {
      const buffer = Buffer.alloc(Math.min((await file.stat()).size, maxBytes));
      const { bytesRead } = await file.read(buffer, 0, buffer.length, 0);
      text = buffer.subarray(0, bytesRead).toString('utf8');
    } finally {
      await file.close();
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  return text.split('\n').flatMap((line) => journalEntryOf(line) ?? []);
}

/** One line of a journal file as its entry; a blank line or one cut by a kill in mid-write (or by a byte cap) is none. */
function journalEntryOf(line: string): ToolJournalEntry | undefined {
  if (line.trim() === '') return undefined;
  try {
    return JSON.parse(line) as ToolJournalEntry;
  } catch {
    return undefined; // Everything before a cut line is whole.
  }
}

/**
 * Reads the journal file at `path` as another process (the stdio mock) appends to it: calls
 * `onEntry` with each entry, looking every `everyMs`, until the returned function is called (once or more: the same answer),
 * which looks once more and gives the whole journal, as readJournalFile would (at most the
 * size a journal file reaches; a torn last line, or a line that is not an entry, left out).
 */
export function followJournalFile(
  path: string,
  onEntry: (entry: ToolJournalEntry) => void,
  everyMs = 100,
): () => Promise<ToolJournalEntry[]> {
  const entries: ToolJournalEntry[] = [];
  let file: FileHandle | undefined;
  let offset = 0;
  let partial = '';
  let stopped = false;
  // A character cut between two looks is completed by the next one.
  const decoder = new StringDecoder('utf8');
  const look = async () => {
    file ??= await open(path, 'r').catch(() => undefined);
    if (file === undefined) return;
    const size = Math.min((await file.stat()).size, JOURNAL_FILE_MAX_BYTES + 64 * 1024);
    if (size <= offset) return;
    const buffer = Buffer.alloc(size - offset);
    const { bytesRead } = await file.read(buffer, 0, buffer.length, offset);
    offset += bytesRead;
    const lines = (partial + decoder.write(buffer.subarray(0, bytesRead))).split('\n');
    partial = lines.pop() ?? '';
    // An entry holds at most 1 MiB of text, escaped: a longer partial line is not one.
    if (partial.length > 8 * 1024 * 1024) partial = '';
    for (const line of lines) {
      const entry = journalEntryOf(line);
      if (entry === undefined) continue;
      entries.push(entry);
      onEntry(entry);
    }
  };
  // The stop cuts the wait between two looks short: a case does not wait out the interval.
  let wake = () => {};
  const done = (async () => {
    while (!stopped) {
      await look().catch(() => {});
      if (stopped) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, everyMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  })();
  let ended: Promise<ToolJournalEntry[]> | undefined;
  const end = async () => {
    stopped = true;
    wake();
    await done;
    try {
      await look();
    } finally {
      await file?.close();
    }
    return entries;
  };
  return () => {
    ended ??= end();
    return ended;
  };
}
