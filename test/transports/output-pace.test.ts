import { Writable } from 'node:stream';
import { describe, expect, test } from 'vitest';
import { writeOrBehind } from '../../src/transports/output-pace.js';

/** A Writable that takes nothing until `release` is called. */
function stalled(highWaterMark: number) {
  const pending: (() => void)[] = [];
  const out = new Writable({
    highWaterMark,
    write(_chunk, _encoding, callback) {
      pending.push(callback);
    },
  });
  const release = () => {
    for (const callback of pending.splice(0)) callback();
  };
  return { out, release };
}

describe('writeOrBehind', () => {
  test('an output that took the chunk, or that only stands in for one (no events), is not behind', () => {
    const { out } = stalled(1024);
    expect(writeOrBehind(out, 'x'.repeat(10))).toBeUndefined();
    const written: string[] = [];
    expect(writeOrBehind({ write: (c: string) => written.push(c) }, 'y')).toBeUndefined();
    expect(written).toEqual(['y']);
  });

  test('behind past its allowance: a promise that settles once the output drained', async () => {
    const { out, release } = stalled(16);
    expect(writeOrBehind(out, 'a'.repeat(32), 64)).toBeUndefined();
    const behind = writeOrBehind(out, 'b'.repeat(64), 64);
    expect(behind).toBeInstanceOf(Promise);
    let settled = false;
    void behind?.then(() => (settled = true));
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    release();
    await new Promise((r) => setImmediate(r));
    release();
    await behind;
    expect(out.writableLength).toBe(0);
  });

  test('an output that closes while behind ends the wait', async () => {
    const { out } = stalled(1);
    const behind = writeOrBehind(out, 'zz');
    expect(behind).toBeInstanceOf(Promise);
    out.destroy();
    await expect(behind).resolves.toBeUndefined();
  });
});
