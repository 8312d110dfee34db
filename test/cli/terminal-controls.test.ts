import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { cli, fakeEntry, fakeSuite, registerAll } from './fake-suites.js';

// A target's output quoted in an error or a warning line (the stderr of a client that could
// not start, a path it left) reaches the user's terminal: its escape sequences (a window
// title, the clipboard, colours, cursor moves) are shown as text, not obeyed.

const SEQUENCES = '\u001b]0;PWNED-TITLE\u0007\u001b[31mred\u001b[0m\u009b2J';

let cleanup: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

test('the error line of a target that could not run shows its escape sequences as text', async () => {
  const { suite } = fakeSuite('fake', [{ id: 'fake.a', outcome: 'pass' }], { unreachable: true });
  cleanup.push(registerAll(fakeEntry(suite)));
  const run = await cli(['test', 'fake', '--fake-url', `http://127.0.0.1:9/${SEQUENCES}`]);
  expect(run.code).toBe(2);
  expect(run.stderr).toContain('WC_TARGET_UNAVAILABLE');
  expect(run.stderr).toContain('PWNED-TITLE');
  expect(run.stderr).not.toMatch(/[\u001b\u0007\u009b]/);
});

test("a warning line (what a suite's close left) shows its escape sequences as text, and so does merge-reports", async () => {
  const dir = await mkdtemp(join(tmpdir(), 'wirecheck-controls-'));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  const { suite } = fakeSuite('fake', [{ id: 'fake.a', outcome: 'pass' }], {
    closing: { warns: `left ${SEQUENCES} behind` },
  });
  cleanup.push(registerAll(fakeEntry(suite)));
  const run = await cli(['test', 'fake', '--fake-url', 'http://127.0.0.1:9', '--report-dir', join(dir, 'r')]);
  expect(run.code).toBe(0);
  expect(run.stderr).toContain('warning: suite fake: left');
  expect(run.stderr).not.toMatch(/[\u001b\u0007\u009b]/);
  const merged = await cli(['merge-reports', '--out', join(dir, 'm'), join(dir, 'r')]);
  expect(merged.stderr).toContain('warning: suite fake: left');
  expect(merged.stderr).not.toMatch(/[\u001b\u0007\u009b]/);
});
