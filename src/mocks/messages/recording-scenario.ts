import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { FixtureFormatError } from '../../fixtures/errors.js';
import { isFixtureFileName } from '../../fixtures/exchange-file.js';
import { readFixtureFile } from '../../fixtures/format.js';
import type { MessagesExchange } from '../../fixtures/schema.js';
import type { FaultPlan } from './faults.js';
import { recordingAsAsked } from './recording-as-asked.js';
import type { ReplayOptions } from './replay-plan.js';
import type { Scenario } from './reply.js';

/**
 * Replies with recorded responses, in order, starting over after the last (one
 * recording: the same response to every request). The request itself only has to be
 * valid; it is not compared with the recorded one, but a whole message recorded in the
 * other mode than the request's `stream` asks for is converted (recordingAsAsked). `faults`
 * apply to every replay (the service's faults are layered under them).
 */
export function recordingScenario(
  recordings: readonly MessagesExchange[],
  options: ReplayOptions & { faults?: FaultPlan } = {},
): Scenario {
  if (recordings.length === 0) throw new TypeError('recordingScenario needs at least one recording');
  const { faults, ...replay } = options;
  let next = 0;
  return (request) => {
    const recording = recordings[next % recordings.length]!;
    next++;
    const converted = recordingAsAsked(recording.response, request.stream === true);
    if (converted?.kind === 'message') return { ...converted, ...(faults && { faults }) };
    if (converted !== undefined) return converted;
    return { kind: 'recorded', response: recording.response, replay, ...(faults && { faults }) };
  };
}

/** A file of a directory that was left out, and why. */
export interface SkippedFile {
  readonly file: string;
  readonly problem: string;
}

/**
 * The recordings of these files and directories (a directory: its `*.json` files and the
 * `*.json.partial` files a recorder stopped mid-stream left, read as the exchange so far
 * marked truncated; in name order). A file named on its own must be a valid recording
 * (FixtureFormatError otherwise); a bad file of a directory is left out and named to
 * `onSkipped`, so one cut or foreign file does not stop the replay of the rest. A
 * directory without one valid recording is an error.
 */
export async function loadRecordings(
  paths: readonly string[],
  onSkipped: (skipped: SkippedFile) => void = () => {},
): Promise<MessagesExchange[]> {
  const out: MessagesExchange[] = [];
  for (const path of paths) {
    const info = await stat(path).catch(() => undefined);
    if (!info?.isDirectory()) {
      out.push(await readRecording(path));
      continue;
    }
    const names = (await readdir(path)).filter(isFixtureFileName).sort();
    const skipped: SkippedFile[] = [];
    let loaded = 0;
    for (const name of names) {
      const file = join(path, name);
      try {
        out.push(await readRecording(file));
        loaded++;
      } catch (e) {
        if (!(e instanceof FixtureFormatError)) throw e;
        const problem = e.path === '' ? e.problem : `${e.path}: ${e.problem}`;
        skipped.push({ file, problem });
        onSkipped({ file, problem });
      }
    }
    if (loaded === 0) {
      const why =
        skipped.length === 0 ? 'no *.json files' : `none of its ${skipped.length} files is a valid recording`;
      throw new FixtureFormatError(path, '', `nothing to replay: ${why}`);
    }
  }
  return out;
}

async function readRecording(file: string): Promise<MessagesExchange> {
  const fixture = await readFixtureFile(file);
  if (fixture.kind !== 'messages-exchange') {
    throw new FixtureFormatError(
      file,
      'kind',
      `a recording is a messages-exchange fixture, not ${fixture.kind}`,
    );
  }
  return fixture;
}
