import { asksForOperator, ROLE_LABEL } from './expect.js';

/**
 * Distinct lines kept of one run: enough for any agent's log, bounded for one that writes a
 * new line at every step.
 */
const MAX_LINES = 256;
/** Enough of a line to quote it and tell it from another. */
const MAX_LINE_CHARS = 400;

/** A stderr line of a run, with its shape (the line as any run of the agent would print it). */
export interface StderrLine {
  readonly line: string;
  readonly shape: string;
  /** It reads as asking someone to act (`asksForOperator`). */
  readonly asks: boolean;
}

/**
 * The distinct lines of one run's whole stderr, one per shape (blank lines left out). A line
 * asking someone to act is kept past MAX_LINES of others, up to MAX_LINES of its own kind: a
 * log of hundreds of distinct lines does not hide the breaker's request.
 */
export interface StderrLines {
  readonly lines: readonly StderrLine[];
  /** More distinct lines came than were kept: some were not. */
  readonly more: boolean;
  /** Of those not kept, some asked someone to act. */
  readonly moreAsking: boolean;
}

export const NO_STDERR_LINES: StderrLines = { lines: [], more: false, moreAsking: false };

/**
 * What two runs of the agent print alike even where the line's details differ: the case's
 * name (it is in the prompt), numbers, ids and hex runs (any word holding a digit: pids,
 * counts, times), paths (the working directory is the case's), case and spacing.
 */
export function lineShape(line: string, caseName: string): string {
  return (
    line
      .split(caseName)
      .join('<case>')
      .toLowerCase()
      .replace(/[/\\][^\s'"`)\]]*/g, '<path>')
      // Word by word: a pattern around the digit backtracks over a long word at every start.
      .replace(/\w+/g, (word) => (/\d/.test(word) ? '#' : word))
      .replace(/\s+/g, ' ')
      .trim()
  );
}

/**
 * A watch of every stderr line of a case's run, the middle of a long stderr included (a run
 * keeps only its first and last KiBs). `see` never accepts a line, so that run-command shows it
 * every one.
 */
export function watchStderrLines(caseName: string): {
  see(line: string): boolean;
  found(): StderrLines;
} {
  const byShape = new Map<string, StderrLine>();
  let others = 0;
  let asking = 0;
  let more = false;
  let moreAsking = false;
  return {
    see(line) {
      const kept = line.slice(0, MAX_LINE_CHARS);
      const shape = lineShape(kept, caseName);
      if (shape === '' || byShape.has(shape)) return false;
      const asks = asksForOperator(line);
      if ((asks ? asking : others) >= MAX_LINES) {
        more = true;
        if (asks) moreAsking = true;
        return false;
      }
      if (asks) asking++;
      else others++;
      byShape.set(shape, { line: kept, shape, asks });
      return false;
    },
    found: () => ({ lines: [...byShape.values()], more, moreAsking }),
  };
}

/**
 * The lines of `tripped` that a control run (`usual`, where the breaker did not trip) did not
 * print: only those can be the breaker's request. A line the control left unkept (`more`)
 * rules nothing out.
 */
export function linesBeyond(tripped: StderrLines, usual: StderrLines): readonly StderrLine[] {
  const shapes = new Set(usual.lines.map((l) => l.shape));
  return tripped.lines.filter((l) => !shapes.has(l.shape));
}

/**
 * Whether a line only echoes the conversation: a log of a turn ("[assistant] [...]", "sending
 * user turn ...") or a command the mock served, printed as such (`$ false`, `+ (exit 2)`). Such
 * lines differ from the control run's because the commands do, not because the agent halted: an
 * agent tracing its loop prints them in every case, and they ask nobody. A line that asks
 * someone to act is no echo, whatever it quotes.
 */
export function echoesConversation(line: StderrLine, servedCommands: readonly string[]): boolean {
  if (line.asks) return false;
  if (line.line.search(new RegExp(ROLE_LABEL.source, 'i')) !== -1) return true;
  const bare = line.line.trim().replace(/^[$+>#]\s*/, '');
  return servedCommands.some((command) => command.trim() === bare);
}
