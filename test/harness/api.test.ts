import { afterEach, describe, expect, test } from 'vitest';
import { resolveSuite, runSuite } from '../../src/api.js';
import { parseBaseline } from '../../src/harness/baseline.js';
import { WirecheckError } from '../../src/harness/errors.js';
import { fakeEntry, fakeSuite, registerAll } from '../cli/fake-suites.js';

let undo: (() => void) | undefined;
afterEach(() => {
  undo?.();
  undo = undefined;
});

function registered() {
  const fake = fakeSuite('fake', [
    { id: 'fake.a.one', outcome: 'pass' },
    { id: 'fake.a.bad', outcome: 'fail' },
    { id: 'fake.b.one', outcome: 'skip' },
  ]);
  undo = registerAll(fakeEntry(fake.suite));
  return fake;
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (e) {
    expect(e).toBeInstanceOf(WirecheckError);
    return (e as WirecheckError).code;
  }
  throw new Error('no error');
}

describe('programmatic API: runSuite', () => {
  test('by suite name and target options, as the command line would build the target', async () => {
    const { ran } = registered();
    const result = await runSuite('fake', { fakeUrl: 'http://127.0.0.1:9' }, { seed: 11, only: ['fake.a.'] });
    expect(result).toMatchObject({ suite: 'fake', target: 'http://127.0.0.1:9', seed: 11 });
    expect(result.checks.map((c) => [c.id, c.status])).toEqual([
      ['fake.a.one', 'pass'],
      ['fake.a.bad', 'fail'],
    ]);
    expect(ran.map((r) => r.seed)).toEqual([11, 11]);
  });

  test('target options may be spelled as on the command line', () => {
    registered();
    expect(resolveSuite('fake', { 'fake-url': 'http://x' }).target).toEqual({ url: 'http://x' });
    expect(resolveSuite('fake', { '--fake-url': 'http://y' }).target).toEqual({ url: 'http://y' });
  });

  test('by suite object and target, as before', async () => {
    const { suite } = registered();
    const result = await runSuite(suite, { url: 'http://z' }, { seed: 1 });
    expect(result.checks).toHaveLength(3);
  });

  test('an unknown suite, an unknown or missing target option, or an --only matching nothing is an error', async () => {
    registered();
    expect(await codeOf(runSuite('nope', {}))).toBe('WC_UNKNOWN_SUITE');
    expect(await codeOf(runSuite('fake', { url: 'http://x' }))).toBe('WC_USAGE');
    expect(await codeOf(runSuite('fake', {}))).toBe('WC_USAGE');
    expect(await codeOf(runSuite('fake', { fakeUrl: 'http://x' }, { only: ['fake.typo'] }))).toBe(
      'WC_NO_CHECKS_SELECTED',
    );
  });

  test('shard (as "i/n") and baseline work as on the command line', async () => {
    registered();
    const target = { fakeUrl: 'http://x' };
    const parts = await Promise.all(
      ['1/2', '2/2'].map((shard) => runSuite('fake', target, { seed: 1, shard })),
    );
    expect(parts.flatMap((p) => p.checks.map((c) => c.id)).sort()).toEqual([
      'fake.a.bad',
      'fake.a.one',
      'fake.b.one',
    ]);
    expect(parts.map((p) => p.shard)).toEqual([
      { index: 1, count: 2 },
      { index: 2, count: 2 },
    ]);
    const baseline = parseBaseline('fake:fake.a.bad  known', 'inline');
    const result = await runSuite('fake', target, { seed: 1, baseline });
    expect(result.checks.find((c) => c.id === 'fake.a.bad')?.baseline).toEqual({
      status: 'expected-failure',
      reason: 'known',
    });
    expect(await codeOf(runSuite('fake', target, { shard: '3/2' }))).toBe('WC_USAGE');
  });
});
