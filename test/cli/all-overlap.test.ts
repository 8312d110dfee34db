import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { SuiteResult } from '../../src/harness/results.js';
import { interruptStop } from '../../src/harness/stop.js';
import { cli, fakeEntry, fakeSuite, registerAll, withoutTimes } from './fake-suites.js';

let cleanup: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'wirecheck-overlap-'));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** The checks of `log` (`begin <id>` / `end <id>` lines) that were running at some moment while `id` ran. */
function runningBeside(log: readonly string[], id: string): string[] {
  const begin = log.indexOf(`begin ${id}`);
  const end = log.indexOf(`end ${id}`);
  expect(begin).toBeGreaterThanOrEqual(0);
  expect(end).toBeGreaterThan(begin);
  const beside = new Set<string>();
  const open = new Set<string>();
  for (const [i, line] of log.entries()) {
    const [what, other = ''] = line.split(' ');
    if (what === 'begin') open.add(other);
    if (what === 'end') open.delete(other);
    if (i >= begin && i < end) for (const o of open) if (o !== id) beside.add(o);
  }
  return [...beside].sort();
}

describe('wirecheck all: suites overlap on one pool of job slots', () => {
  test("a suite's wait overlaps the next suite's checks; the console is the one of --jobs 1, block by block", async () => {
    const log: string[] = [];
    const events: string[] = [];
    const a = fakeSuite('alpha', [
      { id: 'alpha.fails', outcome: 'fail', log },
      { id: 'alpha.wait', outcome: 'pass', delayMs: 300, log },
    ]);
    const b = fakeSuite('beta', [
      { id: 'beta.ok', outcome: 'pass', log },
      { id: 'beta.soft', outcome: 'fail', level: 'should', log },
    ]);
    cleanup.push(
      registerAll(
        fakeEntry(a.suite, { url: 'ref://alpha', events }),
        fakeEntry(b.suite, { url: 'ref://beta', events }),
      ),
    );
    const dir = await tempDir();
    const sequential = await cli(['all', '--report-dir', dir, '--seed', '5', '--verbose', '--jobs', '1']);
    expect(runningBeside(log, 'alpha.wait')).toEqual([]);
    log.length = 0;
    const overlapped = await cli(['all', '--report-dir', dir, '--seed', '5', '--verbose', '--jobs', '2']);
    // beta opened and ran its checks while alpha's checks ran.
    expect(log.indexOf('end beta.soft')).toBeLessThan(log.indexOf('end alpha.wait'));
    expect(overlapped.code).toBe(1);
    expect(overlapped.code).toBe(sequential.code);
    // Each suite's block whole and in plan order, although beta finished first.
    expect(withoutTimes(overlapped.stdout)).toBe(withoutTimes(sequential.stdout));
    expect(overlapped.stdout.indexOf('alpha against')).toBeLessThan(
      overlapped.stdout.indexOf('beta against'),
    );
    expect(overlapped.stdout.indexOf('alpha.wait')).toBeLessThan(overlapped.stdout.indexOf('beta against'));
    expect(overlapped.stderr).toBe(sequential.stderr);
  });

  test('a check that runs alone has no ordinary check of any suite beside it; one that runs last starts after every other check of its suite', async () => {
    const log: string[] = [];
    const events: string[] = [];
    const a = fakeSuite(
      'alpha',
      [
        { id: 'alpha.wait', outcome: 'pass', delayMs: 250, schedule: 'waits', log },
        { id: 'alpha.one', outcome: 'pass', delayMs: 60, log },
        { id: 'alpha.flood', outcome: 'pass', delayMs: 60, schedule: 'alone', log },
        { id: 'alpha.none-left', outcome: 'pass', schedule: 'last', log },
      ],
      { concurrent: true },
    );
    const b = fakeSuite(
      'beta',
      [
        { id: 'beta.one', outcome: 'pass', delayMs: 60, log },
        { id: 'beta.two', outcome: 'pass', delayMs: 60, log },
      ],
      { concurrent: true },
    );
    cleanup.push(
      registerAll(
        fakeEntry(a.suite, { url: 'ref://alpha', events }),
        fakeEntry(b.suite, { url: 'ref://beta', events }),
      ),
    );
    const dir = await tempDir();
    const run = await cli(['all', '--report-dir', dir, '--seed', '5', '--jobs', '2']);
    expect(run.code).toBe(0);
    // Only the waiting check may run beside the one that runs alone.
    expect(runningBeside(log, 'alpha.flood')).toEqual(['alpha.wait']);
    // beta was open and ran while alpha waited...
    expect(runningBeside(log, 'alpha.wait')).toEqual(expect.arrayContaining(['beta.one', 'beta.two']));
    // ...and alpha's last check began only once its waiting check had ended.
    expect(log.indexOf('begin alpha.none-left')).toBeGreaterThan(log.indexOf('end alpha.wait'));
  });

  test('an interrupt stops every suite running, reports those not reached as not run, closes every target, exits 143', async () => {
    const events: string[] = [];
    const a = fakeSuite('alpha', [{ id: 'alpha.hang', outcome: 'hang', timeoutMs: 60_000 }]);
    const b = fakeSuite('beta', [{ id: 'beta.hang', outcome: 'hang', timeoutMs: 60_000 }]);
    const c = fakeSuite('gamma', [{ id: 'gamma.ok', outcome: 'pass' }]);
    cleanup.push(
      registerAll(
        fakeEntry(a.suite, { url: 'ref://a', events }),
        fakeEntry(b.suite, { url: 'ref://b', events }),
        fakeEntry(c.suite, { url: 'ref://c', events }),
      ),
    );
    const dir = await tempDir();
    const stop = new AbortController();
    const timer = setTimeout(() => stop.abort(interruptStop('SIGTERM')), 200);
    cleanup.push(() => clearTimeout(timer));
    const run = await cli(['all', '--report-dir', dir, '--jobs', '2'], { stop: stop.signal });
    expect(run.code).toBe(143);
    // Both hanging checks held the two slots: gamma opened but its check never got one.
    expect(b.ran.map((r) => r.id)).toEqual(['beta.hang']);
    expect(c.ran).toEqual([]);
    expect(events.filter((e) => e.startsWith('close')).sort()).toEqual([
      'close alpha',
      'close beta',
      'close gamma',
    ]);
    for (const [name, id] of [
      ['alpha', 'alpha.hang'],
      ['beta', 'beta.hang'],
      ['gamma', 'gamma.ok'],
    ] as const) {
      const result = SuiteResult.parse(JSON.parse(await readFile(join(dir, name, 'results.json'), 'utf8')));
      expect(result.checks.map((k) => [k.id, k.skipKind])).toEqual([[id, 'not-run']]);
      expect(result.stopped?.signal).toBe('SIGTERM');
    }
    expect(run.stdout).toContain('interrupted by SIGTERM');
  });
});
