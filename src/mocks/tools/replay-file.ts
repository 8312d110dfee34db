import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { FixtureFormatError } from '../../fixtures/errors.js';
import { isFixtureFileName, isPartialFile } from '../../fixtures/exchange-file.js';
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

/** A file of a replay that was read, and whether it holds a session only in part. */
export interface LoadedReplay {
  readonly file: string;
  readonly session: ToolSession;
  /** A journal a recorder left (`*.json.partial`), read as the session so far. */
  readonly partial: boolean;
}

/**
 * The recorded tool sessions of a file or a directory (its `*.json` files and the
 * `*.json.partial` journals a killed recorder left, read as the session so far, in name
 * order: as `serve messages --replay` and `fixtures validate` read a directory). A file named
 * on its own must be a tool session (FixtureFormatError otherwise); a bad file of a directory
 * is left out and named to `onSkipped`, so one cut or foreign file does not stop the replay of
 * the rest. Each file read is told to `onLoaded`. A directory without one valid session is an
 * error.
 */
export async function loadToolReplays(
  path: string,
  onSkipped: (skipped: { file: string; problem: string }) => void = () => {},
  onLoaded: (loaded: LoadedReplay) => void = () => {},
): Promise<ToolSession[]> {
  const load = async (file: string) => {
    const session = await loadToolReplay(file);
    onLoaded({ file, session, partial: isPartialFile(file) });
    return session;
  };
  const info = await stat(path).catch(() => undefined);
  if (!info?.isDirectory()) return [await load(path)];
  const out: ToolSession[] = [];
  const names = (await readdir(path)).filter(isFixtureFileName).sort();
  for (const name of names) {
    const file = join(path, name);
    try {
      out.push(await load(file));
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

/**
 * What a replay should say of a file it serves in part (a journal, a cut recording), or
 * undefined for a whole recorded session: whoever replays it knows the session ends early.
 */
export function partialReplayNote({ session, partial }: LoadedReplay): string | undefined {
  const journal = 'a partial recording (the journal a recorder left)';
  if (session.truncated !== true)
    return partial ? `${journal}, the session whole: its file was not yet written` : undefined;
  const why =
    session.unrecordedBytes !== undefined
      ? `past the recorder's limit, ${session.unrecordedBytes} bytes of the session were relayed but not recorded`
      : 'the session so far, as journaled until the recorder stopped';
  return `${partial ? journal : 'a recording'} cut (truncated): ${why}; the replay ends where the recording does`;
}

/** `--speed`: a positive number, or `max` (0: as fast as possible). */
export function parseReplaySpeed(text: string): number | undefined {
  if (text === 'max') return 0;
  if (!/^\d+(\.\d+)?$/.test(text)) return undefined;
  const n = Number(text);
  return n > 0 ? n : undefined;
}
