/** Where a suite of a run writes: complete console lines, its progress, and standard error. */
export interface BlockOutput {
  /** Complete lines for standard output. */
  out(text: string): void;
  /** Text for standard error (a note, an error report). */
  err(text: string): void;
  /** The status line: shown only while the block is the one on screen. */
  status(show: () => void): void;
  /** Erase the status line, when the block is the one on screen. */
  clear(): void;
}

export interface BlockSinks {
  out(text: string): void;
  err(text: string): void;
  clear(): void;
}

type Entry = { readonly to: 'out' | 'err'; readonly text: string };

/**
 * The console of a run whose suites overlap: one block per suite, printed whole and in plan
 * order. The first unfinished block streams; the blocks after it keep their lines until every
 * block before them is printed, then print them at once and stream on. With the blocks run one
 * after another, this writes exactly what writing straight to the console would.
 */
export function orderedBlocks(
  count: number,
  sinks: BlockSinks,
): { block(i: number): BlockOutput; end(i: number): void } {
  const held: Entry[][] = Array.from({ length: count }, () => []);
  const ended: boolean[] = Array.from({ length: count }, () => false);
  let live = 0;
  const write = (entry: Entry) => (entry.to === 'out' ? sinks.out(entry.text) : sinks.err(entry.text));
  const advance = () => {
    while (live < count && ended[live] === true) {
      live++;
      for (const entry of held[live] ?? []) write(entry);
      if (live < count) held[live] = [];
    }
  };
  const emit = (i: number, entry: Entry) => {
    if (i === live) write(entry);
    else held[i]?.push(entry);
  };
  return {
    block: (i) => ({
      out: (text) => emit(i, { to: 'out', text }),
      err: (text) => emit(i, { to: 'err', text }),
      status: (show) => {
        if (i === live) show();
      },
      clear: () => {
        if (i === live) sinks.clear();
      },
    }),
    end(i) {
      if (i === live) sinks.clear();
      ended[i] = true;
      advance();
    },
  };
}
