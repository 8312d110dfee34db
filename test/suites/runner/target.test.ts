import { expect, test } from 'vitest';
import { UsageError } from '../../../src/harness/errors.js';
import { runnerBaseEnv } from '../../../src/suites/runner/context.js';
import {
  referenceRunnerCommand,
  runnerSuite,
  runnerSuiteEntry,
  runnerTargetFromOptions,
} from '../../../src/suites/runner/index.js';

test('--runner is required and becomes the target', () => {
  expect(runnerTargetFromOptions({ runner: 'python3 runner.py' })).toEqual({ runner: 'python3 runner.py' });
  expect(() => runnerTargetFromOptions({})).toThrow(UsageError);
  expect(() => runnerTargetFromOptions({ runner: '  ' })).toThrow(UsageError);
  expect(runnerSuite.targetArgs({ runner: 'x y' })).toEqual(['--runner', 'x y']);
});

test('the runner gets wirecheck\u2019s environment without its WIRECHECK_ variables, plus the canaries', () => {
  const canaries = {
    variable: 'WIRECHECK_RUNNER_CANARY',
    value: 'v-1',
    pathEntry: '/nonexistent/p',
    user: 'u-1',
  };
  const env = runnerBaseEnv(
    { PATH: '/usr/bin', WIRECHECK_WORKDIR: '/old', HOME: '/root', GONE: undefined },
    canaries,
  );
  expect(env).toEqual({
    PATH: '/nonexistent/p:/usr/bin',
    HOME: '/root',
    USER: 'u-1',
    WIRECHECK_RUNNER_CANARY: 'v-1',
  });
});

test('the reference target is `wirecheck run-bash`', async () => {
  expect(referenceRunnerCommand()).toMatch(/bin\/wirecheck\.js'? run-bash$/);
  const ref = await runnerSuiteEntry.reference!();
  expect(ref.target).toEqual({ runner: referenceRunnerCommand() });
  await ref.close();
});

test('every check has a unique runner.<area>.<rule> id, a clause and a level', () => {
  const ids = runnerSuite.checks.map((c) => c.id);
  expect(new Set(ids).size).toBe(ids.length);
  for (const c of runnerSuite.checks) {
    expect(c.id).toMatch(/^runner\.[a-z-]+\.[a-z0-9-]+$/);
    expect(c.clause).not.toBe('');
    expect(['must', 'should']).toContain(c.level);
  }
  // The rules the spec states outright are must.
  const must = runnerSuite.checks.filter((c) => c.level === 'must').map((c) => c.id);
  expect(must).toEqual(
    expect.arrayContaining([
      'runner.execution.process-group',
      'runner.execution.not-root',
      'runner.truncation.char-boundary',
      'runner.timeout.kills-group',
      'runner.refusal.mkfs',
    ]),
  );
});
