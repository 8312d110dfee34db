import { EventEmitter } from 'node:events';
import { describe, expect, test } from 'vitest';
import { guardRun } from '../../src/harness/run-guard.js';
import { stopOf } from '../../src/harness/stop.js';

function guarded() {
  const proc = new EventEmitter();
  const exits: number[] = [];
  const guard = guardRun(proc, { exitNow: (code) => exits.push(code) });
  return { proc, exits, guard };
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
    for (const event of ['SIGINT', 'SIGTERM', 'uncaughtException', 'unhandledRejection']) {
      expect(proc.listenerCount(event)).toBe(0);
    }
  });
});
