import { withoutTerminalControls } from './text.js';

/** Where progress goes: process.stdout in production, a fake terminal in tests. */
export interface ProgressStream {
  write(chunk: string): unknown;
  readonly isTTY?: boolean;
  /** Width of the terminal, when known: a status line longer than this would wrap and not redraw. */
  readonly columns?: number;
}

/** What is running now, for the status line. */
export interface ProgressState {
  readonly suite: string;
  /** Checks finished so far. */
  readonly done: number;
  readonly total: number;
  /** The id of the check running now. */
  readonly current: string;
}

/**
 * The console of a run: complete lines (a finished check, a summary) and, on a terminal, one
 * status line below them, redrawn in place as checks start. Elsewhere (a pipe, a CI log)
 * only the complete lines are written and `status` writes nothing.
 */
export interface Progress {
  /** Write complete lines; the status line, if shown, is erased first and drawn again after. */
  print(text: string): void;
  status(state: ProgressState): void;
  /** Erase the status line and forget it (before a summary). */
  clear(): void;
}

const ERASE_LINE = '\r\u001b[K';
const DEFAULT_COLUMNS = 80;

/** A status line is only drawn on a terminal that can move its cursor back. */
export function isLiveTerminal(
  stream: { isTTY?: boolean },
  env: Readonly<Record<string, string | undefined>>,
): boolean {
  return stream.isTTY === true && env.TERM !== 'dumb';
}

/** `▸ runner 12/47 runner.truncation.byte-limit`, cut to fit in `columns - 1` characters. */
export function formatStatusLine(state: ProgressState, columns: number): string {
  const text = withoutTerminalControls(`▸ ${state.suite} ${state.done}/${state.total} ${state.current}`);
  const room = Math.max(columns - 1, 10);
  return text.length <= room ? text : `${text.slice(0, room - 1)}…`;
}

export function createProgress(stream: ProgressStream, options: { live: boolean; color: boolean }): Progress {
  if (!options.live) {
    return {
      print: (text) => stream.write(`${text}\n`),
      status: () => {},
      clear: () => {},
    };
  }
  let shown: ProgressState | undefined;
  const draw = () => {
    if (shown === undefined) return;
    // A pseudo-terminal without a size reports 0 columns.
    const line = formatStatusLine(shown, stream.columns || DEFAULT_COLUMNS);
    stream.write(`${ERASE_LINE}${options.color ? `\u001b[2m${line}\u001b[0m` : line}`);
  };
  return {
    print(text) {
      stream.write(`${shown === undefined ? '' : ERASE_LINE}${text}\n`);
      draw();
    },
    status(state) {
      shown = state;
      draw();
    },
    clear() {
      if (shown !== undefined) stream.write(ERASE_LINE);
      shown = undefined;
    },
  };
}
