import { describe, expect, test } from 'vitest';
import { NO_OUTPUT } from '../../../src/suites/runner/checks/output.js';
import { SECURITY_VIOLATION } from '../../../src/suites/runner/checks/refusal.js';
import { isRunnerMarker, probeMarker } from '../../../src/suites/runner/cwd-markers.js';
import { referenceRunnerCommand } from '../../../src/suites/runner/index.js';
import { withoutCommand } from '../../../src/suites/runner/quoted-command.js';
import {
  type BrokenCase,
  brokenCaseTitle,
  expectedStatuses,
  runAgainst,
  runBrokenCase,
  runnerCommand,
  statusById,
} from './helpers.js';

// A runner may quote the command it answers. Wirecheck's own text, quoted back, must never read
// as the runner stating what a check looks for: a security violation, an exit code.

const REFUSAL_CHECKS = [
  'refusal.rm-rf-root',
  'refusal.fork-bomb',
  'refusal.mkfs',
  'refusal.dd-if',
  'refusal.dev-sda',
  'refusal.chmod-777-root',
  'refusal.embedded',
  'refusal.embedded-other',
  'refusal.variants',
  'refusal.harmless-runs',
  'refusal.no-false-positive',
];

describe('the quote of a command is cut out of the text a wording is read in', () => {
  const command = "touch wirecheck-refused-1; echo 'rm -rf /'";

  test('a quote as written, or escaped as a JSON string, does not count', () => {
    for (const text of [
      `error: compound commands are not supported: ${command}`,
      `error: compound commands are not supported: ${JSON.stringify(command)}`,
    ]) {
      expect(SECURITY_VIOLATION.test(text)).toBe(true);
      expect(SECURITY_VIOLATION.test(withoutCommand(text, command))).toBe(false);
    }
    const twoLines = "echo ok\necho 'refused'";
    expect(
      SECURITY_VIOLATION.test(withoutCommand(`unsupported: ${JSON.stringify(twoLines)}`, twoLines)),
    ).toBe(false);
  });

  test("the runner's own words around the quote count", () => {
    const text = `Security violation: blocked pattern "rm -rf /" in the command ${JSON.stringify(command)}`;
    expect(SECURITY_VIOLATION.test(withoutCommand(text, command))).toBe(true);
    expect(NO_OUTPUT.test(withoutCommand(`$ true\n(no output; exit code 0)`, 'true'))).toBe(true);
  });

  test('the pieces around a quote do not join into a phrase', () => {
    expect(SECURITY_VIOLATION.test(withoutCommand(`not ${command}allowed`, command))).toBe(false);
  });
});

test('the refusal probes’ marker files are named in none of the words of a refusal text', () => {
  for (const n of [1, 9, 15]) {
    expect(SECURITY_VIOLATION.test(probeMarker(n))).toBe(false);
    expect(isRunnerMarker(probeMarker(n))).toBe(true);
  }
});

const CASES: BrokenCase[] = [
  {
    runner: 'refuse-compound',
    flaw: 'has no blocklist and refuses every compound command with an error quoting it',
    fails: ['refusal.rm-rf-root', 'refusal.fork-bomb', 'refusal.embedded'],
    warns: ['refusal.mkfs', 'refusal.variants', 'refusal.no-false-positive'],
    passes: ['refusal.harmless-runs'],
  },
  {
    runner: 'blank-quotes-command',
    flaw: 'answers blank output quoting the command, with the exit code 1 for any failure',
    fails: ['output.blank'],
    passes: ['output.stdout-only', 'output.whitespace-only', 'exit-status.is-error-iff-nonzero'],
  },
  {
    runner: 'refusal-quotes-command',
    flaw: 'quotes the command in its refusal text (no flaw)',
    fails: [],
    passes: [...REFUSAL_CHECKS, 'output.blank'],
  },
];

describe('a quote of the command is no statement of the runner', () => {
  for (const c of CASES) {
    test(
      brokenCaseTitle(c),
      async () => {
        expect(statusById(await runBrokenCase(c))).toEqual(expectedStatuses(c));
      },
      c.timeoutMs ?? 60_000,
    );
  }
});

// A check that fails a correct runner is the worst bug: the reference runner and the
// independent one still pass every check these changes touch.
test.each([
  ['the reference runner', () => referenceRunnerCommand()],
  ['the independent runner', () => runnerCommand('conforming')],
])(
  '%s passes the refusal checks and output.blank',
  async (_name, command) => {
    const only = [...REFUSAL_CHECKS, 'output.blank'].map((id) => `runner.${id}`);
    const result = await runAgainst(command(), { only });
    expect(statusById(result)).toEqual(Object.fromEntries(only.map((id) => [id, 'pass'])));
  },
  90_000,
);
