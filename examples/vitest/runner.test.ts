// Conformance checks inside your own test suite: this file is run by wirecheck's own
// `npm test` (through test/examples/vitest-example.test.ts), against the built-in reference
// runner. In your project, point `runner` at your own command, e.g. 'python my_runner.py'.
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { runSuite } from 'wirecheck';
import { describeSuite } from 'wirecheck/vitest';

const bin = fileURLToPath(new URL('../../bin/wirecheck.js', import.meta.url));
const runner = `'${process.execPath}' '${bin}' run-bash`;

// One vitest test per selected check, sharing one opened suite context.
describeSuite(
  'runner',
  { runner },
  {
    seed: 42,
    only: ['runner.results.exits-on-eof', 'runner.output.stdout-and-stderr', 'runner.output.blank'],
  },
);

// Or run a whole selection at once and assert on the results (the results.json shape).
// A whole run, opening the suite included, outlasts vitest's default 5 s test timeout: give it its own.
test('the reference runner refuses a blocked command', { timeout: 120_000 }, async () => {
  const result = await runSuite('runner', { runner }, { seed: 42, only: ['runner.refusal.mkfs'] });
  expect(result.checks.map((c) => [c.id, c.status])).toEqual([['runner.refusal.mkfs', 'pass']]);
  expect(result.summary).toEqual({ passed: 1, failed: 0, warned: 0, skipped: 0 });
});
