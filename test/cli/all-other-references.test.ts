import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { toolServerSuiteEntry } from '../../src/suites/tool-server/index.js';
import { cli, fakeEntry, fakeSuite, lastLine, registerAll } from './fake-suites.js';

let cleanup: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

describe('wirecheck all: a suite with other references runs against each', () => {
  test('the reference first, then each other reference, each with its own report folder', async () => {
    const events: string[] = [];
    const a = fakeSuite('alpha', [{ id: 'alpha.ok', outcome: 'pass' }]);
    const entry = fakeEntry(a.suite, { url: 'ref://alpha', events });
    const other = (label: string) => ({
      label,
      start: async () => {
        events.push(`start ${label}`);
        return {
          target: { url: `ref://alpha-${label}` },
          close: async () => void events.push(`close ${label}`),
        };
      },
    });
    cleanup.push(registerAll({ ...entry, otherReferences: [other('stdio'), other('http')] }));
    const dir = await mkdtemp(join(tmpdir(), 'wirecheck-cli-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const run = await cli(['all', '--report-dir', dir, '--jobs', '1']);
    expect(run.code).toBe(0);
    expect(events).toEqual([
      'start alpha',
      'close alpha',
      'start stdio',
      'close stdio',
      'start http',
      'close http',
    ]);
    expect(run.stdout).toContain('alpha (http) against ref://alpha-http');
    expect(lastLine(run.stdout)).toBe('3 passed, 0 failed, 0 warned, 0 skipped');
    expect((await readdir(dir)).filter((f) => f.startsWith('alpha')).sort()).toEqual([
      'alpha',
      'alpha-http',
      'alpha-stdio',
    ]);
  });

  test('the tool-server suite: the reference over SSE, then over stdio and Streamable HTTP', async () => {
    const sse = await toolServerSuiteEntry.reference!();
    expect(sse.target).toMatchObject({ kind: 'sse' });
    const labels = (toolServerSuiteEntry.otherReferences ?? []).map((o) => o.label);
    expect(labels).toEqual(['stdio', 'streamable http']);
    const targets = await Promise.all((toolServerSuiteEntry.otherReferences ?? []).map((o) => o.start()));
    expect(targets.map((t) => t.target)).toEqual([
      { kind: 'stdio', command: expect.stringContaining('serve tools --transport stdio') },
      {
        kind: 'http',
        url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/),
        start: expect.stringMatching(/serve tools --transport http --port \d+$/),
      },
    ]);
  });
});
