import { EventEmitter } from 'node:events';
import { describe, expect, test } from 'vitest';
import { guardRun } from '../../src/harness/run-guard.js';
import { exitCodeOfSignal, stopExitCode, stopOf } from '../../src/harness/stop.js';

function guarded() {
  const proc = new EventEmitter();
  const exits: number[] = [];
  const endedBy: string[] = [];
  const guard = guardRun(proc, {
    exitNow: (code, signal) => {
      exits.push(code);
      endedBy.push(signal);
    },
  });
  return { proc, exits, endedBy, guard };
}

describe('guardRun: what stops a run from outside', () => {
  test('SIGINT stops the run with an interrupt; a second signal exits at once with 130', () => {
    const { proc, exits, guard } = guarded();
    expect(guard.signal.aborted).toBe(false);
    proc.emit('SIGINT');
    expect(guard.signal.aborted).toBe(true);
    expect(stopOf(guard.signal)).toEqual({
      kind: 'interrupted',
      signal: 'SIGINT',
      message: 'interrupted by SIGINT',
    });
    expect(exits).toEqual([]);
    proc.emit('SIGINT');
    expect(exits).toEqual([130]);
  });

  test('SIGTERM is exit status 143 on the second signal', () => {
    const { proc, exits, guard } = guarded();
    proc.emit('SIGTERM');
    expect(guard.stop?.signal).toBe('SIGTERM');
    proc.emit('SIGTERM');
    expect(exits).toEqual([143]);
  });

  test('SIGHUP (a closed terminal, a CI cancel) stops the run like the others: status 129, and a second one ends it by SIGHUP', () => {
    const { proc, exits, endedBy, guard } = guarded();
    proc.emit('SIGHUP');
    expect(guard.signal.aborted).toBe(true);
    expect(stopOf(guard.signal)).toEqual({
      kind: 'interrupted',
      signal: 'SIGHUP',
      message: 'interrupted by SIGHUP',
    });
    expect(stopExitCode(guard.stop)).toBe(129);
    expect(exits).toEqual([]);
    proc.emit('SIGHUP');
    expect(exits).toEqual([129]);
    expect(endedBy).toEqual(['SIGHUP']);
  });

  test('the second signal is the one the process is to end by, whichever the first was', () => {
    const { proc, exits, endedBy, guard } = guarded();
    proc.emit('SIGINT');
    proc.emit('SIGTERM');
    expect(guard.stop?.signal).toBe('SIGINT');
    expect(exits).toEqual([143]);
    expect(endedBy).toEqual(['SIGTERM']);
  });

  test('exit statuses are 128 + the signal number, as a shell reports them', () => {
    expect([exitCodeOfSignal('SIGHUP'), exitCodeOfSignal('SIGINT'), exitCodeOfSignal('SIGTERM')]).toEqual([
      129, 130, 143,
    ]);
  });

  test('an uncaught exception or an unhandled rejection is a harness error; every one is kept', () => {
    const { proc, guard } = guarded();
    proc.emit('unhandledRejection', new Error('a suite forgot to await'));
    proc.emit('uncaughtException', new RangeError('a timer threw'));
    expect(guard.stop?.kind).toBe('harness-error');
    expect(guard.stop?.message).toBe(
      'wirecheck failed (a bug of wirecheck or of a suite): Error: a suite forgot to await',
    );
    expect(guard.harnessErrors.map((e) => (e as Error).message)).toEqual([
      'a suite forgot to await',
      'a timer threw',
    ]);
  });

  test('dispose stops listening', () => {
    const { proc, guard } = guarded();
    guard.dispose();
    for (const event of ['SIGINT', 'SIGTERM', 'SIGHUP', 'uncaughtException', 'unhandledRejection']) {
      expect(proc.listenerCount(event)).toBe(0);
    }
  });
});
