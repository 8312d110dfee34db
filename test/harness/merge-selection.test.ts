import { describe, expect, test } from 'vitest';
import { cutShort, verdictOf } from '../../src/harness/baseline.js';
import { mergeSuite } from '../../src/harness/merge.js';
import { shardOfCheck } from '../../src/harness/shard.js';
import { stopExitCode } from '../../src/harness/stop.js';
import { check, suiteResult } from '../reporters/fixtures.js';
import { mergeError, shard } from './merge-helpers.js';

describe('shards of different selections', () => {
  test('are refused when both record theirs, naming both', () => {
    const whole = shard(1, 2, ['demo.a'], { selection: { full: false } });
    const narrowed = shard(2, 2, ['demo.b'], { selection: { only: ['demo.b'], full: false } });
    expect(mergeError(() => mergeSuite([whole, narrowed]))).toBe(
      'suite demo: the selection "--only demo.b" in shard-2/results.json but "the quick tier (no --only, no --full)" in shard-1/results.json: shards must select the same checks (the same --only, and --full on all or none): a merge of different selections lacks checks silently',
    );
    const full = shard(2, 2, ['demo.b'], { selection: { full: true } });
    expect(mergeError(() => mergeSuite([whole, full]))).toContain(
      'the selection "--full" in shard-2/results.json',
    );
  });

  test('the same --only given in another order is the same selection, and the merge keeps it', () => {
    const a = shard(1, 2, ['demo.a'], { selection: { only: ['demo.a', 'demo.b'], full: false } });
    const b = shard(2, 2, ['demo.b'], { selection: { only: ['demo.b', 'demo.a'], full: false } });
    expect(mergeSuite([a, b]).selection).toEqual({ only: ['demo.a', 'demo.b'], full: false });
  });

  test("with the catalogue known, a check outside it or outside its file's shard is refused", () => {
    const catalogue = ['demo.a', 'demo.b', 'demo.c', 'demo.d', 'demo.e', 'demo.f'];
    const of = (index: number) => catalogue.filter((id) => shardOfCheck(id, 2) === index);
    const [one, two] = [of(1), of(2)];
    expect(mergeSuite([shard(1, 2, one), shard(2, 2, two)], catalogue).checks).toHaveLength(catalogue.length);
    expect(
      mergeError(() => mergeSuite([shard(1, 2, one), shard(2, 2, [...two, 'demo.zz'])], catalogue)),
    ).toBe(
      `suite demo: shard-2/results.json has check "demo.zz", which is not in the suite's catalogue (\`wirecheck list demo\`): merge with the wirecheck version that ran the shards`,
    );
    const moved = one[0]!;
    expect(
      mergeError(() => mergeSuite([shard(1, 2, one.slice(1)), shard(2, 2, [...two, moved])], catalogue)),
    ).toBe(
      `suite demo: shard-2/results.json is shard 2/2 but has check ${moved}, which belongs to shard 1/2`,
    );
  });
});

describe('targets of shards that wirecheck started', () => {
  test('differ only in loopback ports: no warning', () => {
    const at = (port: number) =>
      `sse: http://127.0.0.1:${port}/sse (started by node wirecheck.js serve tools --transport sse --port ${port})`;
    const merged = mergeSuite([
      shard(1, 2, ['demo.a'], { target: at(24045) }),
      shard(2, 2, ['demo.b'], { target: at(21450) }),
    ]);
    expect(merged.warnings).toBeUndefined();
    const local = mergeSuite([
      shard(1, 2, ['demo.a'], { target: 'http://localhost:40039 (model m)' }),
      shard(2, 2, ['demo.b'], { target: 'http://localhost:40431 (model m)' }),
    ]);
    expect(local.warnings).toBeUndefined();
    const v6 = mergeSuite([
      shard(1, 2, ['demo.a'], { target: 'http://[::1]:40039/mcp' }),
      shard(2, 2, ['demo.b'], { target: 'http://[::1]:40431/mcp' }),
    ]);
    expect(v6.warnings).toBeUndefined();
  });

  test('another host, or another path, still warns', () => {
    const merged = mergeSuite([
      shard(1, 2, ['demo.a'], { target: 'http://gateway.test:8080/v1' }),
      shard(2, 2, ['demo.b'], { target: 'http://gateway.test:8081/v1' }),
    ]);
    expect(merged.warnings?.[0]).toContain('the shards describe their targets differently');
  });
});

describe('a run stopped through the library (an AbortSignal, no signal)', () => {
  const stop = { kind: 'interrupted' as const, message: 'the run was stopped' };
  const stopped = suiteResult(
    'demo',
    [check({ id: 'demo.a', status: 'pass' }), check({ id: 'demo.b', status: 'skip', skipKind: 'not-run' })],
    { stopped: stop },
  );

  test('exits as SIGINT', () => {
    expect(stopExitCode(stop)).toBe(130);
    expect(stopExitCode({ ...stop, signal: 'SIGTERM' })).toBe(143);
  });

  test('is cut short, so verdictOf fails it', () => {
    expect(cutShort(stopped)).toBe(true);
    expect(verdictOf([stopped], false)).toBe(1);
  });
});
