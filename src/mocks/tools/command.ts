import { appendFileSync, chmodSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { ToolJournalEntry } from './journal.js';

export interface MockToolCommandOptions {
  /** The scenario JSON file (default: the mock's default scenario). */
  readonly scenarioFile?: string;
  /** Where the mock appends its journal, one JSON line per entry. */
  readonly journalFile?: string;
  /** Default stdio. */
  readonly transport?: 'stdio' | 'sse' | 'http';
  readonly port?: number;
  /**
   * `cli` (default): `node bin/wirecheck.js serve mock-tools ...`, the documented command.
   * `direct`: `node <dist>/mocks/tools/stdio-process.js ...` (stdio only), which loads the
   * mock alone and starts several times faster; the tool-client suite uses it.
   */
  readonly launcher?: 'cli' | 'direct';
  /** Replay this recorded tool session (`--replay`). */
  readonly replayFile?: string;
  /** Of the replay: a factor, or `max`. */
  readonly speed?: number | 'max';
}

/**
 * The shell command that starts a mock tool server: `node <abs bin/wirecheck.js> serve
 * mock-tools ...`, shell-quoted, for a client under test to spawn (WIRECHECK_SERVER_CMD).
 * It runs the built code (dist/), as the bin does.
 */
export function mockToolServerCommand(options: MockToolCommandOptions): string {
  const scenario = options.scenarioFile === undefined ? [] : ['--scenario', options.scenarioFile];
  const journal = [
    ...(options.journalFile === undefined ? [] : ['--journal', options.journalFile]),
    ...(options.replayFile === undefined ? [] : ['--replay', options.replayFile]),
    ...(options.speed === undefined ? [] : ['--speed', String(options.speed)]),
  ];
  if (options.launcher === 'direct') {
    // The compiled entry next to the compiled form of this file.
    const entry = fileURLToPath(new URL('./stdio-process.js', distUrl(import.meta.url)));
    return [process.execPath, entry, ...scenario, ...journal].map(shellQuote).join(' ');
  }
  // This file sits two folders below src/ or dist/, so the bin is three folders up.
  const bin = fileURLToPath(new URL('../../../bin/wirecheck.js', import.meta.url));
  const args = [
    process.execPath,
    bin,
    'serve',
    'mock-tools',
    '--transport',
    options.transport ?? 'stdio',
    ...scenario,
    ...journal,
  ];
  if (options.port !== undefined) args.push('--port', String(options.port));
  return args.map(shellQuote).join(' ');
}

/** This module's URL under dist/ (tests import it from src/, but node runs the compiled file). */
function distUrl(url: string): string {
  return url.replace(/\/src\/mocks\/tools\/[^/]*$/, '/dist/mocks/tools/command.js');
}

/**
 * An `onEntry` that appends each entry to `path` as one JSON line, synchronously, so the
 * file is complete up to the last entry even when the mock is killed right after. The file
 * is readable by its owner only (0600): it holds what clients sent, and its entries carry
 * their HTTP headers with credentials redacted, and message contents as they were but for
 * the secret values those headers carried (journal-secrets.ts).
 */
export function journalFileWriter(path: string): (entry: ToolJournalEntry) => void {
  let first = true;
  return (entry) => {
    appendFileSync(path, `${JSON.stringify(entry)}\n`, { mode: 0o600 });
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

/** Read a journal file back (a missing file is an empty journal; a torn last line is dropped). */
export async function readJournalFile(path: string): Promise<ToolJournalEntry[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  const entries: ToolJournalEntry[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      entries.push(JSON.parse(line) as ToolJournalEntry);
    } catch {
      // A line cut by a kill in mid-write: everything before it is whole.
    }
  }
  return entries;
}

/** POSIX shell quoting (as the harness's shellQuote; mocks do not import the harness). */
function shellQuote(arg: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}
