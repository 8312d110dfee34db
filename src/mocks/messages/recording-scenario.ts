import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { FixtureFormatError } from '../../fixtures/errors.js';
import { readFixtureFile } from '../../fixtures/format.js';
import type { MessagesExchange } from '../../fixtures/schema.js';
import type { FaultPlan } from './faults.js';
import type { ReplayOptions } from './replay-plan.js';
import type { Scenario } from './reply.js';

/**
 * Replies with recorded responses, in order, starting over after the last (one
 * recording: the same response to every request). The request itself only has to be
 * valid; it is not compared with the recorded one. `faults` apply to every replay (the
 * service's faults are layered under them).
 */
export function recordingScenario(
  recordings: readonly MessagesExchange[],
  options: ReplayOptions & { faults?: FaultPlan } = {},
): Scenario {
  if (recordings.length === 0) throw new TypeError('recordingScenario needs at least one recording');
  const { faults, ...replay } = options;
  let next = 0;
  return () => {
    const recording = recordings[next % recordings.length]!;
    next++;
    return { kind: 'recorded', response: recording.response, replay, ...(faults && { faults }) };
  };
}

/**
 * The recordings of these files and directories (a directory: its `*.json` files, in
 * name order). Throws FixtureFormatError naming the file and JSON path of a bad one.
 */
export async function loadRecordings(paths: readonly string[]): Promise<MessagesExchange[]> {
  const files: string[] = [];
  for (const path of paths) {
    const info = await stat(path).catch(() => undefined);
    if (info?.isDirectory()) {
      const names = (await readdir(path)).filter((n) => n.endsWith('.json')).sort();
      files.push(...names.map((n) => join(path, n)));
    } else files.push(path);
  }
  const out: MessagesExchange[] = [];
  for (const file of files) {
    const fixture = await readFixtureFile(file);
    if (fixture.kind !== 'messages-exchange') {
      throw new FixtureFormatError(
        file,
        'kind',
        `a recording is a messages-exchange fixture, not ${fixture.kind}`,
      );
    }
    out.push(fixture);
  }
  return out;
}
