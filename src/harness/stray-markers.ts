import { lstatSync, readdirSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';

// A target that ignores WIRECHECK_WORKDIR runs its commands where it was started: the user's
// project. The files the checks' commands make there carry names of wirecheck's own; a suite
// notes which of them are there when it opens and removes, at its close, those it finds that
// were not (the checks judge only the working directory, never the user's).

export interface StrayMarkers {
  /** Remove the markers made since: regular files only. Returns a warning naming them, if any. */
  sweep(): string | undefined;
}

/** Watch `dir` (the directory targets are started in) for files whose names `isMarker` takes. */
export function watchStrayMarkers(
  isMarker: (name: string) => boolean,
  what: string,
  dir: string = process.cwd(),
): StrayMarkers {
  const markersIn = (): string[] => {
    try {
      return readdirSync(dir).filter(isMarker);
    } catch {
      return [];
    }
  };
  const before = new Set(markersIn());
  return {
    sweep() {
      const removed: string[] = [];
      for (const name of markersIn()) {
        if (before.has(name)) continue;
        const path = join(dir, name);
        try {
          // A link or a directory of that name is no file a check made.
          if (!lstatSync(path).isFile()) continue;
          unlinkSync(path);
          removed.push(name);
        } catch {
          // Gone already, or not ours to remove: left as it is.
        }
      }
      if (removed.length === 0) return undefined;
      return `the ${what} ran commands in the directory it was started in (${dir}), not in WIRECHECK_WORKDIR: wirecheck removed the files the checks' commands made there (${removed.sort().join(', ')})`;
    },
  };
}

/** Two warnings as one, either or both absent. */
export function joinWarnings(a: string | undefined, b: string | undefined): string | undefined {
  return a === undefined || b === undefined ? (a ?? b) : `${a}; ${b}`;
}
