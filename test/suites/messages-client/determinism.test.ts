import { beforeAll, describe, expect, test } from 'vitest';
import { verdictById } from '../../broken-verdicts.js';
import { determinismJobs } from '../../determinism-jobs.js';
import { ensureBuilt, nodeCommand, runAgainst } from './helpers.js';

// Same seed, same target, same verdicts: five runs with one seed of the property-based
// checks (and neighbours) against the reference client and broken ones, with --jobs 1 and
// the default in turn.
const P = 'messages-client.';
const PROPERTIES = [`${P}buffered.generated-messages`, `${P}stream.final-message`];

const TARGETS: Array<[string, string, string[], number]> = [
  ['the reference client', './reference-client.mjs', [...PROPERTIES, `${P}stream.pings`], 2],
  // A failing property shrinks (each value a client run): one generated run per suite run.
  ['a client that crashes on pings', './broken/crash-on-ping.mjs', [`${P}stream.final-message`], 1],
  [
    'a client that parses every fragment',
    './broken/parse-each-fragment.mjs',
    [`${P}stream.tool-input-fragments`, `${P}buffered.final-message`],
    1,
  ],
];

beforeAll(ensureBuilt, 60_000);

describe('five runs with one seed give one verdict set', () => {
  test.each(TARGETS)(
    '%s',
    async (_name, file, only) => {
      const runs: Record<string, string>[] = [];
      for (let i = 0; i < 5; i++)
        runs.push(
          verdictById(await runAgainst(nodeCommand(file), { only, runs: 3, jobs: determinismJobs(i) })),
        );
      for (const run of runs.slice(1)) expect(run).toEqual(runs[0]);
      expect(Object.keys(runs[0]!).sort()).toEqual([...only].sort());
    },
    180_000,
  );
});
