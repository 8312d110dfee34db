import { describe, expect, test } from 'vitest';
import { CASES, ROOMY_MAX_TURNS } from '../../../src/suites/agent/cases.js';
import { nodeCommand, notPassed, runAgainst, statusById } from './helpers.js';

const CAP_CHECKS = ['agent.cap.honoured', 'agent.cap.exact'];

// The spec's Turn is an element of `messages` ("a plain string is a single text turn"), so an
// agent counting the prompt, each reply and each results turn reads the cap as the spec defines
// it: the suite must not fail it, in the capped case nor by a cap too tight for a scripted one.
describe('an agent that counts turns as messages of the conversation', () => {
  test('passes every quick check but agent.cap.exact, which warns', async () => {
    const result = await runAgainst(nodeCommand('./broken/count-messages.mjs'));
    const notPassedIds = result.checks.filter((c) => c.status !== 'pass').map((c) => c.id);
    expect(notPassedIds, notPassed(result).join('\n')).toEqual(['agent.cap.exact']);
    expect(statusById(result)['agent.cap.exact']).toBe('warn');
    expect(result.checks.find((c) => c.id === 'agent.cap.exact')!.actual).toBe('2 requests');
  }, 120_000);

  test('every scripted case leaves it room for all its steps (two turns a request, plus the prompt)', () => {
    const roomy = Object.values(CASES).filter((c) => c.maxTurns === ROOMY_MAX_TURNS);
    expect(roomy.length).toBeGreaterThan(5);
    for (const c of roomy) expect(ROOMY_MAX_TURNS, c.name).toBeGreaterThanOrEqual(2 * c.steps + 2);
  });
});

describe('agent.cap.honoured still fails an agent outside every reading of a turn', () => {
  test('one that stops after one request under the cap', async () => {
    const result = await runAgainst(nodeCommand('./broken/one-shot.mjs'), { only: CAP_CHECKS });
    const honoured = result.checks.find((c) => c.id === 'agent.cap.honoured')!;
    expect(honoured.status).toBe('fail');
    expect(honoured.message).toContain('1 requests under a cap of 4 turns is fewer than any reading');
    expect(honoured.expected).toBe('2 to 5 requests (2: a turn is a message; 4 or 5: a turn is a request)');
    expect(honoured.actual).toBe('1 requests');
  }, 60_000);

  test('one that ignores the cap', async () => {
    const result = await runAgainst(nodeCommand('./broken/no-cap.mjs'), { only: CAP_CHECKS });
    const honoured = result.checks.find((c) => c.id === 'agent.cap.honoured')!;
    expect(honoured.status).toBe('fail');
    expect(honoured.message).toContain('is more than any reading');
    expect(statusById(result)['agent.cap.exact']).toBe('warn');
  }, 60_000);
});
