import { asksForOperator } from './expect.js';

/**
 * Distinct lines kept of one run: enough for any agent's log, bounded for one that writes a
 * new line asking for help at every step.
 */
const MAX_LINES = 256;
/** Enough of a line to quote it and tell it from another. */
const MAX_LINE_CHARS = 400;

/** A stderr line that asks someone to act, with its shape: the line as any run of the agent would print it. */
export interface OperatorLine {
  readonly line: string;
  readonly shape: string;
}

/** The lines of one run's whole stderr that ask someone to act (`asksForOperator`), one per shape. */
export interface OperatorLines {
  readonly lines: readonly OperatorLine[];
  /** More distinct lines came than MAX_LINES: some were not kept. */
  readonly more: boolean;
}

export const NO_OPERATOR_LINES: OperatorLines = { lines: [], more: false };

/**
 * What two runs of the agent print alike even where the line's details differ: the case's
 * name (it is in the prompt), numbers, ids and hex runs (any word holding a digit: pids,
 * counts, times), paths (the working directory is the case's), case and spacing.
 */
export function lineShape(line: string, caseName: string): string {
  return line
    .split(caseName)
    .join('<case>')
    .toLowerCase()
    .replace(/[/\\][^\s'"`)\]]*/g, '<path>')
    .replace(/\w*\d\w*/g, '#')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * A watch of every stderr line of a case's run, the middle of a long stderr included (a run
 * keeps only its first and last KiBs). `see` never accepts a line, so that run-command shows it
 * every one: the first matching line may be a banner every run prints, and the breaker's line
 * come after it.
 */
export function watchOperatorLines(caseName: string): {
  see(line: string): boolean;
  found(): OperatorLines;
} {
  const byShape = new Map<string, OperatorLine>();
  let more = false;
  return {
    see(line) {
      if (!asksForOperator(line)) return false;
      const kept = line.slice(0, MAX_LINE_CHARS);
      const shape = lineShape(kept, caseName);
      if (byShape.has(shape)) return false;
      if (byShape.size >= MAX_LINES) more = true;
      else byShape.set(shape, { line: kept, shape });
      return false;
    },
    found: () => ({ lines: [...byShape.values()], more }),
  };
}

/**
 * The lines of `asked` that a control run (`usual`, where the breaker did not trip) did not
 * print: only those can be the breaker's request. A line the control left unkept (`more`)
 * rules nothing out.
 */
export function linesBeyond(asked: OperatorLines, usual: OperatorLines): readonly OperatorLine[] {
  const shapes = new Set(usual.lines.map((l) => l.shape));
  return asked.lines.filter((l) => !shapes.has(l.shape));
}
