import { rmSync } from 'node:fs';

/**
 * Remove a directory a target worked in. The target may have left something there wirecheck
 * may not delete (a folder without write permission, an immutable file): that is returned as a
 * warning, not thrown, so the run's verdicts stand and the user learns what remains.
 */
export function removeWorkDir(dir: string): string | undefined {
  try {
    rmSync(dir, { recursive: true, force: true, maxRetries: 2 });
    return undefined;
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    return `the working directory ${dir} could not be removed (${why}): the target left something there that wirecheck may not delete; remove it by hand`;
  }
}

/** An error's message with what removing the working directory left behind, when anything. */
export function withLeftover(message: string, left: string | undefined): string {
  return left === undefined ? message : `${message}; ${left}`;
}
