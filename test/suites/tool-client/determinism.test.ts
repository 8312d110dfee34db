import { beforeAll, describe, expect, test } from 'vitest';
import type { RunOptions } from '../../../src/harness/run-suite.js';
import type { ProtocolRevision } from '../../../src/protocol/mcp/index.js';
import type { ToolTransport } from '../../../src/suites/tool-client/index.js';
import { expectedVerdicts, verdictById } from '../../broken-verdicts.js';
import { determinismJobs } from '../../determinism-jobs.js';
import { CASES, idsOf, transportsOfCase } from './broken-cases.js';
import { ensureBuilt, nodeCommand, runAgainst } from './helpers.js';

beforeAll(ensureBuilt, 120_000);

// Same seed, same target, same verdicts (issue "Determinism"): each broken client runs 5
// times with one seed (--jobs 1 and the default in turn) and every run must give the same
// status for every check, a skip's kind included (not exercised, not applicable). The
// reference client's five runs are in reference.test.ts.
const RUNS = 5;

async function verdictsOf(
  client: string,
  options: RunOptions = {},
  transports?: readonly ToolTransport[],
  protocol?: ProtocolRevision,
): Promise<Record<string, string>[]> {
  const sets: Record<string, string>[] = [];
  for (let i = 0; i < RUNS; i++) {
    const run = await runAgainst(client, { ...options, jobs: determinismJobs(i) }, transports, protocol);
    sets.push(verdictById(run));
  }
  return sets;
}

describe('five runs with one seed give one set of verdicts', () => {
  // The flaws whose verdicts hang on timing: replies that take a second (and a request sent
  // before the initialize result, which a fast reply may still precede), a client that gives
  // up early, the shutdown order (a kill is told by the relay's watcher, which races the
  // client's exit), a server that goes away, a ping awaiting an answer, a dropped Streamable
  // HTTP answer stream.
  for (const name of [
    'no-await',
    'pipeline-list',
    'impatient',
    'kill-first',
    'kill-server',
    'hang-on-close',
    'ignore-ping',
    'http-no-resume',
  ]) {
    const c = CASES.find((k) => k.client === name)!;
    test(`the broken client that ${c.flaw}: the same verdicts every run`, async () => {
      const sets = await verdictsOf(
        nodeCommand(`./clients/${c.client}.mjs`),
        { only: idsOf(c) },
        transportsOfCase(c),
        c.protocol,
      );
      for (const set of sets) expect(set).toEqual(expectedVerdicts(c, 'tool-client'));
    }, 300_000);
  }
});
