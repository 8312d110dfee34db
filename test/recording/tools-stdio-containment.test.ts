import { Readable } from 'node:stream';
import { expect, test } from 'vitest';
import { recordStdioSession } from '../../src/recording/tools/index.js';
import { liveNow } from '../harness/process-helpers.js';

test('recording a stdio server that leaves a setsid escapee holding its stdout: the session ends and the escapee is gone', async () => {
  const arg = `36${Math.floor(Math.random() * 1e7)}.25`;
  const started = performance.now();
  const recording = await recordStdioSession({
    command: `setsid sleep ${arg} & sleep 0.3; exit 0`,
    input: Readable.from([]),
    write: () => {},
    writeError: () => {},
  });
  expect(recording.exit).toEqual({ code: 0, signal: null });
  // The escapee sleeps for weeks: only waiting on it is the fault; a loaded machine (CI: two cores, a load of 10) takes seconds to start and end processes.
  expect(performance.now() - started).toBeLessThan(20_000);
  expect(liveNow(arg)).toEqual([]);
});
