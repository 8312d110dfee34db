import { join } from 'node:path';
import { PACKAGE_ROOT, WIRECHECK_BIN } from '../../package-root.js';
import { shellQuote } from '../shell-quote.js';

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
   * `direct`: `node <dist>/bundle/mock-tools-stdio.js ...` (stdio only: the bundle of
   * stdio-process.ts), which loads the mock alone and starts several times faster; the
   * tool-client suite uses it.
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
    // stdio-process.ts as bundled by the build (rolldown.config.ts).
    const entry = join(PACKAGE_ROOT, 'dist', 'bundle', 'mock-tools-stdio.js');
    return [process.execPath, entry, ...scenario, ...journal].map(shellQuote).join(' ');
  }
  const args = [
    process.execPath,
    WIRECHECK_BIN,
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
