import { describe, expect, test } from 'vitest';
import { verdictById } from '../../broken-verdicts.js';
import { determinismJobs } from '../../determinism-jobs.js';
import { buildDist, distIsFresh } from '../../global-setup.js';
import { nodeCommand, runAgainst } from './helpers.js';

/**
 * The same seed gives the same verdicts: each target runs 5 times in a row and every run's
 * verdict set (check id -> status, a skip by its kind) must equal the first, with --jobs 1 and the default in turn. The reference agent and the
 * independent one run the whole quick tier; the broken agents the checks their flaw trips.
 */
const RUNS = 5;

const TARGETS: { name: string; agent: string; only?: string[] }[] = [
  { name: 'the reference agent', agent: nodeCommand('./reference-agent.mjs') },
  { name: 'an independent agent in equivalent forms', agent: nodeCommand('./broken/equivalent-forms.mjs') },
  {
    name: 'an agent that runs every tool as bash',
    agent: nodeCommand('./broken/any-tool.mjs'),
    only: ['agent.loop.other-tool-ends', 'agent.loop.requests-valid', 'agent.results.'],
  },
  {
    name: 'an agent whose breaker trips early and has no cap',
    agent: nodeCommand('./broken/breaker-at-2.mjs'),
    only: ['agent.breaker.', 'agent.cap.'],
  },
];

describe(`${RUNS} runs with one seed give one verdict set`, () => {
  for (const target of TARGETS) {
    test(target.name, async () => {
      if (!distIsFresh()) buildDist();
      const verdicts: Record<string, string>[] = [];
      for (let i = 0; i < RUNS; i++) {
        verdicts.push(
          verdictById(
            await runAgainst(target.agent, {
              jobs: determinismJobs(i),
              ...(target.only === undefined ? {} : { only: target.only }),
            }),
          ),
        );
      }
      expect(Object.keys(verdicts[0]!).length).toBeGreaterThan(0);
      for (const v of verdicts.slice(1)) expect(v).toEqual(verdicts[0]);
    }, 300_000);
  }
});
