import { describe, expect, test } from 'vitest';
import { runAgainst, runnerCommand } from './helpers.js';

// A line the runner had begun when wirecheck killed it is the kill's doing: its answer was not
// seen, so the check is not exercised, neither failed as a malformed line nor as a missing one.
describe('a result line cut off by the session budget', () => {
  test('is not exercised, said to be cut off by the kill, not failed as a line that is not JSON', async () => {
    const result = await runAgainst(runnerCommand('stall-mid-answer'), {
      only: ['runner.output.stdout-only'],
    });
    const check = result.checks.find((c) => c.id === 'runner.output.stdout-only');
    expect(check?.message).not.toMatch(/is not JSON/);
    expect([check?.status, check?.skipKind]).toEqual(['skip', 'not-exercised']);
    expect(check?.message).toMatch(/when wirecheck killed the runner \(killed after the session budget/);
  }, 60_000);
});
