import { expect, test } from 'vitest';
import type { CommandRun } from '../../../src/harness/run-command.js';
import { classifyRun, describeRun } from '../../../src/suites/messages-client/output.js';

function run(over: Partial<CommandRun>): CommandRun {
  return { exitCode: 0, signal: null, stdout: '', stderr: '', timedOut: false, durationMs: 5, ...over };
}

test('exit 0 with one JSON value on stdout is a printed result', () => {
  expect(classifyRun(run({ stdout: '{"id":"msg_1"}\n' }))).toEqual({
    type: 'printed',
    value: { id: 'msg_1' },
  });
});

test('a non-zero exit with the error object is a reported failure, status optional', () => {
  const outcome = classifyRun(
    run({ exitCode: 1, stdout: '{"error":{"kind":"connection","message":"refused"}}' }),
  );
  expect(outcome).toEqual({ type: 'error', exitCode: 1, error: { kind: 'connection', message: 'refused' } });
});

test('an error object printed with exit 0 breaks the contract', () => {
  const outcome = classifyRun(
    run({ stdout: '{"error":{"kind":"rate_limit","status":429,"message":"slow down"}}' }),
  );
  expect(outcome.type).toBe('broken');
});

test('a non-zero exit without the error object breaks the contract', () => {
  expect(classifyRun(run({ exitCode: 1, stdout: 'Traceback...' })).type).toBe('broken');
  expect(classifyRun(run({ exitCode: 1, stdout: '{"kind":"status"}' })).type).toBe('broken');
});

test('log lines before the JSON on stdout break the contract', () => {
  expect(classifyRun(run({ stdout: 'sending request\n{"id":"msg_1"}\n' })).type).toBe('broken');
});

test('a run past its budget is reported as such, whatever it printed', () => {
  const outcome = classifyRun(run({ timedOut: true, exitCode: null, signal: 'SIGTERM', durationMs: 1500 }));
  expect(outcome).toEqual({ type: 'broken', reason: 'the command did not exit within 1500 ms' });
});

test('the run description carries the exit status and the end of stderr', () => {
  expect(describeRun(run({ exitCode: 3, stderr: 'boom\n' }))).toBe('exit 3; stderr: boom');
  expect(describeRun(run({ exitCode: null, signal: 'SIGKILL' }))).toBe('exit signal SIGKILL');
});
