import { expect, test } from 'vitest';
import { BASES, MUST_BASES } from '../../../src/harness/check.js';
import { agentSuite } from '../../../src/suites/agent/index.js';

test('every check has a unique agent.<area>.<rule> id, a clause, a basis, a rule, and the level its basis gives', () => {
  const ids = agentSuite.checks.map((c) => c.id);
  expect(new Set(ids).size).toBe(ids.length);
  for (const c of agentSuite.checks) {
    expect(c.id).toMatch(/^agent\.[a-z0-9-]+\.[a-z0-9-]+$/);
    expect(c.clause).not.toMatch(/Runner contract \d|TARGETS/);
    expect(BASES).toContain(c.basis);
    expect(c.rule?.length, c.id).toBeGreaterThan(40);
    expect(c.level, `${c.id} (basis ${c.basis})`).toBe(MUST_BASES.includes(c.basis!) ? 'must' : 'should');
  }
});

test('a rule the spec states for every loop fails; a recommendation or a habit of the real API warns', () => {
  const level = (id: string) => agentSuite.checks.find((c) => c.id === id)?.level;
  for (const id of [
    'agent.loop.requests-valid',
    'agent.loop.other-tool-ends',
    'agent.breaker.halts-at-third',
    'agent.cap.default',
    'agent.runner.workdir',
    'agent.breaker.operator-line',
    'agent.auth.version-sent',
    'agent.auth.content-type',
  ]) {
    expect(level(id), id).toBe('must');
  }
  for (const id of [
    'agent.loop.requests-accepted',
    'agent.loop.assistant-turn-verbatim',
    'agent.cap.default-recommended',
    'agent.results.order',
    // Words asking a person to act cannot be read for every wording: a miss only warns.
    'agent.breaker.operator-line-asks',
    // The real API accepts newer versions than the spec's.
    'agent.auth.version-value',
  ]) {
    expect(level(id), id).toBe('should');
  }
});
