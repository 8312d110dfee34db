import { describe, expect, test } from 'vitest';
import { runSuite } from '../../../src/harness/run-suite.js';
import { agentSuite } from '../../../src/suites/agent/index.js';
import { readCompatibilityTable, tableDifferences } from '../../compatibility/tables.js';
import { AGENTS } from '../../compatibility/targets.js';
import { SEED } from './helpers.js';

// The suite (quick tier, as a user runs it) against the official SDK's tool-use loop, adapted
// and as its documentation shows it, and the comparison with docs/agent-compatibility.md.

describe('interop with a tool-use loop nobody here wrote (docs/agent-compatibility.md)', () => {
  for (const name of Object.keys(AGENTS)) {
    test(`${name}: every failure, warning and skip is the one the compatibility table lists`, async () => {
      const started = await AGENTS[name]!();
      const result = await runSuite(agentSuite, started.target, { seed: SEED }).finally(() =>
        started.close(),
      );
      const table = await readCompatibilityTable('agent');
      expect(tableDifferences('agent', table, name, result)).toEqual([]);
    }, 180_000);
  }
});

test("the SDK tool's own definition warns as a custom tool; its follow-ups without tools fail", async () => {
  const started = await AGENTS['SDK toolRunner (defaults)']!();
  const result = await runSuite(agentSuite, started.target, {
    seed: SEED,
    only: ['agent.loop.tools-every-request', 'agent.loop.bash-built-in'],
  }).finally(() => started.close());
  const byId = new Map(result.checks.map((c) => [c.id, c]));
  // The spec states no rule that every agent declares the built-in: the custom tool only warns.
  expect(byId.get('agent.loop.bash-built-in')).toMatchObject({ status: 'warn' });
  expect(byId.get('agent.loop.bash-built-in')?.message).toContain(
    'the tool named bash is declared with type "custom", as a custom tool, not as the built-in shell tool',
  );
  // The first request offers it; the thread's follow-ups send no tools at all.
  expect(byId.get('agent.loop.tools-every-request')).toMatchObject({ status: 'fail' });
  expect(byId.get('agent.loop.tools-every-request')?.message).toMatch(
    /request 2: the bash tool must be sent on every request/,
  );
}, 60_000);
