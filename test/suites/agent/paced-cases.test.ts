import { expect, test } from 'vitest';
import { runSuite } from '../../../src/harness/run-suite.js';
import { createAgentSuite } from '../../../src/suites/agent/suite.js';
import { nodeCommand, SEED, statusById } from './helpers.js';

// The cap cases count how far an agent goes: with slow turns, a budget counted from the first
// request ends them before any cap shows. Here each case has 3 s, where both agents need 5-7 s.
const suite = createAgentSuite({ caseTimeoutMs: 3000 });
const only = ['agent.cap.default', 'agent.cap.honoured'];

test('an agent whose turns are slow is judged on its cap: passed with one, failed without', async () => {
  const capped = await runSuite(suite, { agent: nodeCommand('broken/slow-turns.mjs') }, { seed: SEED, only });
  expect(statusById(capped)).toEqual({ 'agent.cap.default': 'pass', 'agent.cap.honoured': 'pass' });
  const uncapped = await runSuite(
    suite,
    { agent: nodeCommand('broken/slow-turns-no-cap.mjs') },
    { seed: SEED, only },
  );
  expect(statusById(uncapped)).toEqual({ 'agent.cap.default': 'fail', 'agent.cap.honoured': 'fail' });
  const check = uncapped.checks.find((c) => c.id === 'agent.cap.default')!;
  expect(check.message).toMatch(/never stopped by itself: the scripted model stopped it after 100 requests/);
}, 120_000);
