import { expect, test } from 'vitest';
import { runCommand } from '../../src/harness/run-command.js';

const env = { PATH: process.env.PATH };

test('a target command runs under sh -c with the given stdin and environment', async () => {
  const run = await runCommand('read line; echo "got $line $FOO"; echo err >&2; exit 3', {
    env: { ...env, FOO: 'bar' },
    stdin: 'hello\n',
    timeoutMs: 5000,
  });
  expect(run).toMatchObject({ exitCode: 3, stdout: 'got hello bar\n', stderr: 'err\n', timedOut: false });
});

test('a command past its time budget is terminated with its whole process group', async () => {
  const run = await runCommand('sleep 30 & echo $! > /dev/null; sleep 30', {
    env,
    timeoutMs: 200,
    graceMs: 100,
  });
  expect(run.timedOut).toBe(true);
  expect(run.durationMs).toBeLessThan(10_000);
});

test('a background child holding the pipes open does not keep the run alive after the command exits', async () => {
  const run = await runCommand('sleep 30 & echo started', { env, timeoutMs: 10_000 });
  expect(run.stdout).toBe('started\n');
  expect(run.timedOut).toBe(false);
});
