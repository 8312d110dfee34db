import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { FixtureFormatError } from '../../fixtures/errors.js';
import { readFixtureFile } from '../../fixtures/format.js';
import type { ToolSession } from '../../fixtures/schema.js';

/** Read a recorded tool session to replay; throws FixtureFormatError naming the file and the problem. */
export async function loadToolReplay(file: string): Promise<ToolSession> {
  const fixture = await readFixtureFile(file);
  if (fixture.kind !== 'tool-session') {
    throw new FixtureFormatError(
      file,
      'kind',
      `a tool-server replay needs a tool-session fixture, not ${fixture.kind}`,
    );
  }
  return fixture;
}

/**
 * The recorded tool sessions of a file or a directory (its `*.json` files in name order).
 * A file named on its own must be a tool session (FixtureFormatError otherwise); a bad
 * file of a directory is left out and named to `onSkipped`, so one cut or foreign file
 * does not stop the replay of the rest. A directory without one valid session is an error.
 */
export async function loadToolReplays(
  path: string,
  onSkipped: (skipped: { file: string; problem: string }) => void = () => {},
): Promise<ToolSession[]> {
  const info = await stat(path).catch(() => undefined);
  if (!info?.isDirectory()) return [await loadToolReplay(path)];
  const out: ToolSession[] = [];
  const names = (await readdir(path)).filter((n) => n.endsWith('.json')).sort();
  for (const name of names) {
    const file = join(path, name);
    try {
      out.push(await loadToolReplay(file));
    } catch (e) {
      if (!(e instanceof FixtureFormatError)) throw e;
      onSkipped({ file, problem: e.path === '' ? e.problem : `${e.path}: ${e.problem}` });
    }
  }
  if (out.length === 0) {
    throw new FixtureFormatError(
      path,
      '',
      `nothing to replay: no valid tool-session file among ${names.length}`,
    );
  }
  return out;
}

/** `--speed`: a positive number, or `max` (0: as fast as possible). */
export function parseReplaySpeed(text: string): number | undefined {
  if (text === 'max') return 0;
  if (!/^\d+(\.\d+)?$/.test(text)) return undefined;
  const n = Number(text);
  return n > 0 ? n : undefined;
}
