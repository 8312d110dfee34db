// Growth measured side by side, for tests that guard against quadratic work. A bound in ms
// fails on a loaded machine (CI has two cores, and a load of 10 is common); two sizes measured
// in the same test are slowed alike, so their ratio still tells linear from quadratic. Speed
// goals themselves live in `npm run bench`.
//
// Times are this process's CPU time, not the wall clock: at a load of 15 on two cores, the wall
// time of the same work varied fivefold from run to run (the process waiting its turn), and
// ratios of linear work came out past 20; its CPU time varied by a third.

/** The CPU time this process has used, in ms (its threads together: the GC's work counts). */
export function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** The least CPU time of `runs` runs of `work`, in ms: other work only ever adds to a run. */
export function bestMs(work: () => unknown, runs = 5): number {
  let best = Number.POSITIVE_INFINITY;
  for (let run = 0; run < runs; run++) {
    const t0 = cpuMs();
    work();
    best = Math.min(best, cpuMs() - t0);
  }
  return best;
}

/**
 * How many times larger the larger size is. Eight times the size costs about 8 times the
 * time when linear and 64 when quadratic; the bound, GROWTH_BOUND, is 3 times from each, room
 * for a ratio that strays (by a third or so in CPU time on a loaded machine).
 */
export const SIZE_FACTOR = 8;
export const GROWTH_BOUND = 24;

/**
 * `work(n)` and `work(SIZE_FACTOR * n)` timed side by side, their ratio, and a message naming
 * both times. Each is repeated until the smaller takes 50 ms or more, well above the clock's
 * grain and the odd collection of garbage. The sizes are timed in turn, after a warm-up, so that neither pays
 * for compiling the code and a change of load falls on both.
 */
export function sizesSideBySide(work: (n: number) => unknown, n: number, runs = 5) {
  work(n);
  const once = bestMs(() => work(n), 3);
  const repeats = Math.max(1, Math.ceil(50 / Math.max(once, 0.01)));
  const repeated = (m: number) => () => {
    for (let i = 0; i < repeats; i++) work(m);
  };
  let small = Number.POSITIVE_INFINITY;
  let large = Number.POSITIVE_INFINITY;
  for (let run = 0; run < runs; run++) {
    small = Math.min(small, bestMs(repeated(n), 1));
    large = Math.min(large, bestMs(repeated(SIZE_FACTOR * n), 1));
  }
  return {
    ratio: large / small,
    says: `size ${n}: ${small.toFixed(2)} ms; size ${SIZE_FACTOR * n}: ${large.toFixed(2)} ms (each ${repeats} times)`,
  };
}

/**
 * The ms of one read of every element of `list` (the best of five): a cost known to be linear
 * and small, for timing work beside it that must stay within a few such reads.
 */
export function oneReadMs(list: ArrayLike<unknown>): number {
  return bestMs(() => {
    let objects = 0;
    for (let i = 0; i < list.length; i++) if (typeof list[i] === 'object') objects++;
    return objects;
  });
}
