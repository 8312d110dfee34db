import { expect, test } from 'vitest';
import { BASES, MUST_BASES } from '../../../src/harness/check.js';
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

test('every check has a unique runner.<area>.<rule> id, a clause, a basis, a rule, and the level its basis gives', () => {
  const ids = runnerSuite.checks.map((c) => c.id);
  expect(new Set(ids).size).toBe(ids.length);
  for (const c of runnerSuite.checks) {
    expect(c.id).toMatch(/^runner\.[a-z0-9-]+\.[a-z0-9-]+$/);
    expect(c.clause).toMatch(
      /^(Runner contract for the shell tool|Target contract|Errors|Built-in shell tool)/,
    );
    expect(c.clause).not.toMatch(/Runner contract \d|TARGETS/);
    expect(BASES).toContain(c.basis);
    expect(c.rule?.length, c.id).toBeGreaterThan(40);
    expect(c.level, `${c.id} (basis ${c.basis})`).toBe(MUST_BASES.includes(c.basis!) ? 'must' : 'should');
  }
});

test('what the spec states for every runner fails; what it describes for one reference runner warns', () => {
  const level = (id: string) => runnerSuite.checks.find((c) => c.id === id)?.level;
  for (const id of [
    'runner.execution.process-group',
    'runner.execution.not-root',
    'runner.truncation.by-bytes',
    'runner.timeout.kills-group',
    'runner.timeout.default-20s',
    'runner.refusal.rm-rf-root',
    'runner.refusal.fork-bomb',
    'runner.spawn-failure.error-result',
    'runner.output.failure-with-stderr',
  ]) {
    expect(level(id), id).toBe('must');
  }
  for (const id of [
    'runner.restart.jobs-gone',
    'runner.refusal.mkfs',
    'runner.refusal.variants',
    'runner.environment.path',
    'runner.environment.home',
    'runner.timeout.term-grace',
    'runner.truncation.char-boundary',
    'runner.flood.memory-bounded',
  ]) {
    expect(level(id), id).toBe('should');
  }
  // The real default timeout runs in the default tier (in the background of the others).
  expect(runnerSuite.checks.find((c) => c.id === 'runner.timeout.default-20s')?.tier).toBeUndefined();
});
