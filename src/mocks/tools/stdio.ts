import type { ToolSession } from '../../fixtures/schema.js';
import { createLineDecoder } from '../../protocol/jsonrpc/index.js';
import type { JournalLimits } from '../limits.js';
import { depthProblem } from '../limits.js';
import { ToolJournal, type ToolJournalEntry } from './journal.js';
import { toolReplayPlanOf } from './replay-plan.js';
import { ReplayToolSession } from './replay-session.js';
import { type ToolScenario, type ToolScenarioInput, toolScenario } from './scenario.js';
import { MockToolSession } from './session.js';

export interface StdioMockOptions {
  /** The client's messages: the mock's stdin. */
  readonly input: AsyncIterable<string | Uint8Array>;
  /**
   * The mock's stdout; must write synchronously or in order. A promise returned says the
   * output is behind (writeOrBehind): no more input is read until it settles, so a client that
   * writes and never reads costs a full pipe, not the mock's memory.
   */
  write(text: string): void | Promise<void>;
  /** Called with every journal entry as it is recorded (e.g. to append it to a file). */
  readonly onEntry?: (entry: ToolJournalEntry) => void;
  /** Stops the mock (as if its stdin ended). */
  readonly signal?: AbortSignal;
  /**
   * The process that carried the session is gone (killed, or it wrote its own last entry):
   * stop without journaling an end, as a killed mock process journals none.
   */
  readonly vanished?: AbortSignal;
  /** Journal into this journal (default: a new one with `onEntry` and `journalLimits`). */
  readonly journal?: ToolJournal;
  /** Serve this recorded session instead of the scenario's answers. */
  /** (Of several, the first: a stdio session is one session.) */
  readonly replay?: ToolSession | readonly ToolSession[];
  /** Of the replay: 1 as recorded (default), 2 twice as fast, 0 as fast as possible. */
  readonly speed?: number;
  /** Bounds of the journal (default DEFAULT_JOURNAL_LIMITS). */
  readonly journalLimits?: Partial<JournalLimits>;
  /** The session's name in the journal (default `stdio`; a client's later server processes: `stdio-2`...). */
  readonly session?: string;
}

/**
 * How a stdio mock session ended: its stdin ended (`eof`), the mock closed it (fault), the
 * caller stopped it (`aborted`), or its process went away (`vanished`).
 */
export type StdioMockEnd = 'eof' | 'closed' | 'aborted' | 'vanished';

/**
 * What the `closed` entry of a stdio session says of its end: its stdin ended, it was
 * signalled while the client that started it ran or after that client exited, it was killed
 * while the client ran (the relay's watcher saw it die with no end of stdin and no SIGTERM,
 * STDIO_RELAY_SCRIPT), or the harness stopped it. The shutdown-order check reads them.
 */
export const STDIO_ENDS = {
  stdinEnded: 'stdin ended',
  termWhileRunning: 'SIGTERM while the client was running',
  termAfterExit: 'SIGTERM after the client exited',
  killedWhileRunning: 'killed (no end of stdin, no SIGTERM) while the client was running',
  // Closed stdin first, but did not wait for the server to exit (the mock still drained its replies).
  termAfterStdinEnd: 'SIGTERM after its stdin ended, before it exited, while the client was running',
  killedAfterStdinEnd: 'killed after its stdin ended, before it exited, while the client was running',
  stopped: 'stopped',
} as const;

/**
 * The journal's name for the `n`th server process (0-based) one client started in a case:
 * `stdio`, then `stdio-2`... A stdio session is one process, and a client may start several
 * (one to list the tools, another to call one).
 */
export function stdioSessionName(n: number): string {
  return n === 0 ? 'stdio' : `stdio-${n + 1}`;
}

/**
 * The stdio mock tool server: newline-delimited JSON-RPC on `input`/`write`. Every line is
 * journaled as it arrived (a line that is not JSON too, answered with a parse error); the
 * promise settles when stdin ends or the scenario closes the session (fault
 * closeStreamAfter), after which the caller exits.
 */
export async function runStdioMockToolServer(
  input: ToolScenario | ToolScenarioInput,
  options: StdioMockOptions,
): Promise<{ end: StdioMockEnd; journal: ToolJournal }> {
  const scenario = toolScenario(input, 'stdio');
  const sessionName = options.session ?? 'stdio';
  const journal = options.journal ?? new ToolJournal(options.onEntry, options.journalLimits);
  const recording = Array.isArray(options.replay)
    ? options.replay[0]
    : (options.replay as ToolSession | undefined);
  let closedByMock!: () => void;
  const closed = new Promise<'closed'>((resolve) => {
    closedByMock = () => resolve('closed');
  });
  /** Settles once the output caught up, while it is behind. */
  let behind: Promise<'caught-up'> | undefined;
  const write = (text: string) => {
    const waiting = options.write(text);
    if (waiting === undefined || behind !== undefined) return;
    behind = waiting.then(() => {
      behind = undefined;
      return 'caught-up' as const;
    });
  };
  const channel = {
    session: sessionName,
    transport: 'stdio' as const,
    write: (text: string) => write(`${text}\n`),
    writeBanner: (text: string) => write(`${text}\n`),
    writeRaw: (bytes: Uint8Array) => write(Buffer.from(bytes).toString('utf8')),
    close: () => closedByMock(),
  };
  const session =
    recording === undefined
      ? new MockToolSession(scenario, journal, channel)
      : new ReplayToolSession(toolReplayPlanOf(recording), scenario, journal, channel, {
          speed: options.speed ?? 1,
        });
  const decoder = createLineDecoder({
    onLine: (parsed) => {
      // A line nested deeper than MAX_BODY_DEPTH is answered as unparseable and kept as text only.
      const deep = parsed.ok ? depthProblem(parsed.line) : undefined;
      const line =
        deep === undefined
          ? parsed
          : { ok: false as const, line: parsed.line, error: deep, lineNumber: parsed.lineNumber };
      if (line.ok) {
        journal.record({
          session: sessionName,
          transport: 'stdio',
          direction: 'received',
          kind: 'message',
          text: line.line,
          value: line.value,
        });
        session.receive(line.value, line.line);
      } else {
        journal.record({
          session: sessionName,
          transport: 'stdio',
          direction: 'received',
          kind: 'message',
          text: line.line,
          parseError: line.error,
        });
        session.receiveUnparseable(line.error);
      }
    },
    // A client may close stdin right after its last message: it is read, not a parse error.
    readsLastLine: true,
  });
  const aborted = Promise.race([
    stopped(options.signal, 'aborted' as const),
    stopped(options.vanished, 'vanished' as const),
  ]);
  session.start();
  const iterator = options.input[Symbol.asyncIterator]();
  let end: StdioMockEnd;
  for (;;) {
    if (behind !== undefined) {
      const waited = await Promise.race([behind, closed, aborted]);
      if (waited !== 'caught-up') {
        end = waited;
        break;
      }
    }
    const next = await Promise.race([iterator.next(), closed, aborted]);
    if (next === 'closed' || next === 'aborted' || next === 'vanished') {
      end = next;
      break;
    }
    // An input that ends because its process went away is not an end of stdin.
    if (options.vanished?.aborted) {
      end = 'vanished';
      break;
    }
    if (next.done) {
      decoder.end();
      // A client may close stdin right after its last request: its replies still go out.
      await Promise.race([session.drain(), closed, aborted]);
      end = 'eof';
      break;
    }
    decoder.feed(next.value);
  }
  if (end === 'eof' || end === 'aborted') {
    journal.record({
      session: sessionName,
      transport: 'stdio',
      direction: 'received',
      kind: 'closed',
      text: end === 'eof' ? STDIO_ENDS.stdinEnded : STDIO_ENDS.stopped,
    });
  }
  session.dispose();
  // Stop reading: for process.stdin this releases the event loop so the process can exit.
  void iterator.return?.();
  return { end, journal };
}

/** Settles with `end` once `signal` aborts; never without one. */
function stopped<T>(signal: AbortSignal | undefined, end: T): Promise<T> {
  return new Promise<T>((resolve) => {
    if (signal?.aborted) resolve(end);
    signal?.addEventListener('abort', () => resolve(end), { once: true });
  });
}
