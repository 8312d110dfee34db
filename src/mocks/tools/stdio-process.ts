// A process entry for the stdio mock that loads only the mock (not the whole CLI):
// `node dist/bundle/mock-tools-stdio.js --scenario FILE [--journal FILE]` (this file as the
// build bundles it, rolldown.config.ts). It behaves as
// `wirecheck serve mock-tools --transport stdio` does; the suite starts it once per stdio
// case, where the CLI's start-up (every command's modules) would cost most of the case.
// Never imported: running it is its only use.
import { closeSync, openSync } from 'node:fs';
import module from 'node:module';
import { OUTPUT_ALLOWANCE_BYTES, writeOrBehind } from '../../transports/output-pace.js';
import type { ToolJournalEntry } from './journal.js';

// Before the mock's modules load (hence the dynamic imports below): V8's code cache on disk
// makes each of the suite's many starts cheaper, as for bin/wirecheck.js.
module.enableCompileCache?.();

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const scenarioFile = flag('--scenario');
const journalFile = flag('--journal');
const replayFile = flag('--replay');
const speedText = flag('--speed');
// A replay's modules (fixture formats, SSE framing) load only when asked for: a suite's case has none.
const [
  { journalFileWriter },
  { loadToolScenario, toolScenario },
  { runStdioMockToolServer, STDIO_ENDS, stdioSessionName },
  replayModule,
] = await Promise.all([
  import('./journal-file.js'),
  import('./scenario.js'),
  import('./stdio.js'),
  replayFile === undefined && speedText === undefined ? undefined : import('./replay-file.js'),
]);

/** Server processes of one journal that get sessions of their own; later ones share the last. */
const MAX_SESSIONS = 64;
/** Entry numbers of one process's session: the nth process numbers from n times this. */
const SEQ_STRIDE = 1_000_000_000;

/**
 * Which of the server processes writing to `file` this one is (0-based), claimed by creating
 * `<file>.session-<n>` exclusively: a client may start several (one to list the tools,
 * another to call one), each a stdio session of its own in the one journal.
 */
function claimSession(file: string): number {
  for (let n = 0; n < MAX_SESSIONS - 1; n++) {
    try {
      closeSync(openSync(`${file}.session-${n + 1}`, 'wx', 0o600));
      return n;
    } catch {
      // Taken by an earlier process.
    }
  }
  return MAX_SESSIONS - 1;
}

const sessionIndex = journalFile === undefined ? 0 : claimSession(journalFile);
const sessionName = stdioSessionName(sessionIndex);

// Shutdown order (MCP 2024-11-05: close stdin, wait, then SIGTERM): a SIGTERM is written to
// the journal, saying whether the client that started this mock still ran (the mock's parent
// is the client, or the client's `sh -c`; once the client exits it is re-parented).
const parentAtStart = process.ppid;
if (journalFile !== undefined) {
  const write = journalFileWriter(journalFile);
  process.once('SIGTERM', () => {
    const running = process.ppid === parentAtStart;
    write({
      seq: -1,
      at: Date.now(),
      atMs: Math.round(performance.now() * 1000) / 1000,
      session: sessionName,
      transport: 'stdio',
      direction: 'received',
      kind: 'closed',
      text: running ? STDIO_ENDS.termWhileRunning : STDIO_ENDS.termAfterExit,
    });
    process.exit(143);
  });
}
/** Entries numbered apart from those of the journal's other server processes. */
function sessionEntries(write: (entry: ToolJournalEntry) => void): (entry: ToolJournalEntry) => void {
  return sessionIndex === 0
    ? write
    : (entry) => write({ ...entry, seq: sessionIndex * SEQ_STRIDE + entry.seq });
}

try {
  const scenario = scenarioFile === undefined ? toolScenario() : await loadToolScenario(scenarioFile);
  const replay = replayFile === undefined ? undefined : await replayModule?.loadToolReplay(replayFile);
  const speed = speedText === undefined ? 1 : replayModule?.parseReplaySpeed(speedText);
  if (speed === undefined) throw new Error(`--speed takes a number above 0 or max, got ${speedText}`);
  const { end } = await runStdioMockToolServer(scenario, {
    ...(replay !== undefined && { replay, speed }),
    input: process.stdin,
    write: (text) => writeOrBehind(process.stdout, text, OUTPUT_ALLOWANCE_BYTES),
    session: sessionName,
    ...(journalFile !== undefined && { onEntry: sessionEntries(journalFileWriter(journalFile)) }),
  });
  // A stdio session ends when the server process ends (spec, "Tool server, stdio transport"):
  // a session the mock closed ends the process, whether or not the client still writes to
  // it (its stdin would keep the process alive). Writes to a pipe are synchronous here
  // while the pipe has room (a client that stopped reading may miss the last replies).
  if (end === 'closed') process.exit(0);
} catch (e) {
  process.stderr.write(`wirecheck mock tool server: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exitCode = 2;
}
