import { expect, test } from 'vitest';
import { nodeCommand, notPassed, runAgainst } from './helpers.js';

// A second agent written from the spec alone (broken/base.mjs without flaws), reading the
// breaker and the default cap differently from the reference where the spec allows it: a
// check that fails it would be a false failure, the worst bug a conformance harness can have.
test('an independent agent that follows the spec passes every quick check', async () => {
  const result = await runAgainst(nodeCommand('./broken/conforming.mjs'));
  expect(notPassed(result)).toEqual([]);
  expect(result.summary.passed).toBe(result.checks.length);
}, 120_000);

test('an agent whose shell session is kept across calls (a top-level exit ends it until a restart) passes every quick check', async () => {
  // The scripted failing commands leave such a shell running: `(exit 2)`, not `exit 2`, which ended
  // it, so the breaker's recovering `echo` failed too and breaker.reset-by-success failed.
  const result = await runAgainst(nodeCommand('./broken/session-shell.mjs'));
  expect(notPassed(result)).toEqual([]);
  expect(result.summary.passed).toBe(result.checks.length);
}, 120_000);
