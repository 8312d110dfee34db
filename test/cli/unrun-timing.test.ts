import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import type { Suite } from '../../src/harness/check.js';
import { SuiteResult } from '../../src/harness/results.js';
import { cli, type FakeTarget, fakeEntry, fakeSuite, registerAll } from './fake-suites.js';

// A suite that spends its time in its preflight and cannot run (or stops on a harness error
// there) took that time: results.json and junit.xml say when it began and how long it took.

const OPEN_MS = 400;

let cleanup: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

async function runIn(
  suite: Suite<FakeTarget, object>,
): Promise<{ code: number; dir: string; before: number }> {
  cleanup.push(registerAll(fakeEntry(suite)));
  const root = await mkdtemp(join(tmpdir(), 'wirecheck-unrun-timing-'));
  cleanup.push(() => rm(root, { recursive: true, force: true }));
  const dir = join(root, 'r');
  const before = Date.now();
  const run = await cli(['test', 'fake', '--fake-url', 'http://127.0.0.1:9/', '--report-dir', dir]);
  return { code: run.code, dir, before };
}

async function expectTimed(dir: string, before: number): Promise<void> {
  const result = SuiteResult.parse(JSON.parse(await readFile(join(dir, 'results.json'), 'utf8')));
  // Generous: the open alone waits OPEN_MS; only a duration of about 0 is the fault.
  expect(result.durationMs).toBeGreaterThanOrEqual(OPEN_MS - 50);
  const started = Date.parse(result.startedAt);
  expect(started).toBeGreaterThanOrEqual(before - 1000);
  expect(started).toBeLessThanOrEqual(Date.now() - (OPEN_MS - 50));
  const junit = await readFile(join(dir, 'junit.xml'), 'utf8');
  const time = Number(/<testsuite name="fake"[^>]* time="([\d.]+)"/.exec(junit)?.[1]);
  expect(time).toBeGreaterThanOrEqual((OPEN_MS - 50) / 1000);
}

test('a target found unavailable after a slow preflight: its run took the preflight time', async () => {
  const { suite } = fakeSuite('fake', [{ id: 'fake.a', outcome: 'pass' }], {
    openMs: OPEN_MS,
    unreachable: true,
  });
  const { code, dir, before } = await runIn(suite);
  expect(code).toBe(2);
  await expectTimed(dir, before);
});

test('a harness error in a slow open: the checks not run, and the time the open took', async () => {
  const { suite: base } = fakeSuite('fake', [{ id: 'fake.a', outcome: 'pass' }]);
  const suite: Suite<FakeTarget, object> = {
    ...base,
    async open() {
      await new Promise((r) => setTimeout(r, OPEN_MS));
      throw new TypeError('a bug of the suite');
    },
  };
  const { code, dir, before } = await runIn(suite);
  expect(code).toBe(2);
  await expectTimed(dir, before);
});
