import { expect, test } from 'vitest';
import { referenceRunnerCommand } from '../../../src/suites/runner/index.js';
import { runAgainst } from './helpers.js';

// The reference runner (dist/, built by the global setup) runs each command in a fresh bash: a
// variable exported by one command is gone in the next even without a restart, so the variable
// gone after a restart shows nothing about the restart. It used to pass on that.
test("the reference runner's restart is answered, and its fresh session is not exercised: it keeps no shell state between commands", async () => {
  const result = await runAgainst(referenceRunnerCommand(), {
    only: ['runner.restart.answered', 'runner.restart.fresh-session'],
  });
  const byId = Object.fromEntries(result.checks.map((c) => [c.id, c]));
  expect(byId['runner.restart.answered']?.status).toBe('pass');
  const fresh = byId['runner.restart.fresh-session'];
  expect([fresh?.status, fresh?.skipKind]).toEqual(['skip', 'not-exercised']);
  expect(fresh?.message).toMatch(/keeps no shell state between commands/);
}, 120_000);
