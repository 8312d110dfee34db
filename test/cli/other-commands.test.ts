import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, test } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { RunMessagesClientCommand } from '../../src/cli/messages-client.js';
import type { MockMessagesServeOptions, StartMockMessagesService } from '../../src/cli/serve-messages.js';
import { VERSION } from '../../src/version.js';
import { cli, fakeEntry, fakeSuite, lastLine, registerAll, withoutTimes } from './fake-suites.js';

let cleanup: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'wirecheck-cli-'));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

describe('wirecheck all', () => {
  test('runs every suite that has a reference against it, closes it, and writes the combined reports', async () => {
    const events: string[] = [];
    const a = fakeSuite('alpha', [{ id: 'alpha.ok', outcome: 'pass' }]);
    const b = fakeSuite('beta', [
      { id: 'beta.ok', outcome: 'pass' },
      { id: 'beta.soft', outcome: 'fail', level: 'should' },
    ]);
    const noRef = fakeSuite('gamma', [{ id: 'gamma.ok', outcome: 'pass' }]);
    cleanup.push(
      registerAll(
        fakeEntry(a.suite, { url: 'ref://alpha', events }),
        fakeEntry(noRef.suite),
        fakeEntry(b.suite, { url: 'ref://beta', events }),
      ),
    );
    const dir = await tempDir();
    // One job: one suite after another. The default overlaps them: each still opens before it
    // closes, in the same order, and the console and reports are the same.
    const sequential = await cli(['all', '--report-dir', dir, '--seed', '3', '--jobs', '1']);
    expect(events).toEqual(['start alpha', 'close alpha', 'start beta', 'close beta']);
    events.length = 0;
    const run = await cli(['all', '--report-dir', dir, '--seed', '3', '--jobs', '2']);
    expect(run.code).toBe(0);
    expect(events.filter((e) => e.startsWith('start'))).toEqual(['start alpha', 'start beta']);
    expect(events.indexOf('close alpha')).toBeGreaterThan(events.indexOf('start alpha'));
    expect(events.indexOf('close beta')).toBeGreaterThan(events.indexOf('start beta'));
    expect(withoutTimes(run.stdout)).toBe(withoutTimes(sequential.stdout));
    expect(noRef.ran).toEqual([]);
    expect(run.stdout).toContain('alpha against ref://alpha');
    expect(run.stdout).not.toContain('PASS  alpha.ok'); // passing checks only with --verbose
    expect(run.stdout).toContain('! WARN  beta.soft');
    expect(lastLine(run.stdout)).toBe('2 passed, 0 failed, 1 warned, 0 skipped');
    expect((await readdir(dir)).sort()).toEqual([
      'alpha',
      'beta',
      'junit.xml',
      'report.html',
      'summary.json',
    ]);
    const summary = JSON.parse(await readFile(join(dir, 'summary.json'), 'utf8'));
    expect(summary.summary).toMatchObject({ passed: 2, failed: 0, warned: 1, skipped: 0 });
    expect((await cli(['all', '--report-dir', dir, '--strict'])).code).toBe(1);
  });

  test('--verbose prints passing checks too', async () => {
    const a = fakeSuite('alpha', [{ id: 'alpha.ok', outcome: 'pass' }]);
    cleanup.push(registerAll(fakeEntry(a.suite, { url: 'ref://alpha', events: [] })));
    const run = await cli(['all', '--report-dir', await tempDir(), '--verbose']);
    expect(run.stdout).toContain('✓ PASS  alpha.ok');
  });

  test('a reference that cannot start gives 2, and the other suites still run', async () => {
    const events: string[] = [];
    const a = fakeSuite('alpha', [{ id: 'alpha.bad', outcome: 'fail' }]);
    const b = fakeSuite('beta', [{ id: 'beta.ok', outcome: 'pass' }]);
    cleanup.push(
      registerAll(
        fakeEntry(a.suite, { url: 'ref://alpha', events, fails: true }),
        fakeEntry(b.suite, { url: 'ref://beta', events }),
      ),
    );
    const run = await cli(['all', '--report-dir', await tempDir()]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      'WC_TARGET_UNAVAILABLE: suite alpha: the reference implementation could not be started: port in use',
    );
    expect(b.ran.map((r) => r.id)).toEqual(['beta.ok']);
    expect(lastLine(run.stdout)).toBe('1 passed, 0 failed, 0 warned, 0 skipped');
  });

  test("a reference's note (started without isolation, and why) is printed once, before the suites run", async () => {
    const note = 'note: no isolation level works on this machine (bwrap: not installed), so ...';
    const a = fakeSuite('alpha', [{ id: 'alpha.ok', outcome: 'pass' }]);
    const b = fakeSuite('beta', [{ id: 'beta.ok', outcome: 'pass' }]);
    cleanup.push(
      registerAll(
        fakeEntry(a.suite, { url: 'ref://alpha', events: [], note }),
        fakeEntry(b.suite, { url: 'ref://beta', events: [], note }),
      ),
    );
    const run = await cli(['all', '--report-dir', await tempDir()]);
    expect(run.code).toBe(0);
    expect(run.stderr.split(note).length - 1).toBe(1);
    expect(lastLine(run.stdout)).toBe('2 passed, 0 failed, 0 warned, 0 skipped');
  });

  test('2 when no suite has a reference implementation', async () => {
    cleanup.push(registerAll(fakeEntry(fakeSuite('alpha', []).suite)));
    const run = await cli(['all', '--report-dir', await tempDir()]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('WC_NO_REFERENCE');
  });
});

describe('wirecheck list', () => {
  test('--json prints the catalogue as an array', async () => {
    const a = fakeSuite('alpha', [
      { id: 'alpha.x', outcome: 'pass' },
      { id: 'alpha.y', outcome: 'pass', level: 'should', tier: 'full' },
    ]);
    cleanup.push(
      registerAll(
        fakeEntry(a.suite),
        fakeEntry(fakeSuite('beta', [{ id: 'beta.z', outcome: 'pass' }]).suite),
      ),
    );
    const run = await cli(['list', '--json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual([
      {
        id: 'alpha.x',
        suite: 'alpha',
        clause: 'Events rule 1',
        level: 'must',
        basis: 'spec',
        rule: 'The rule of check alpha.x, stated for every target.',
        tier: 'quick',
        description: 'check alpha.x',
      },
      {
        id: 'alpha.y',
        suite: 'alpha',
        clause: 'Events rule 1',
        level: 'should',
        basis: 'spec-reference',
        rule: 'The rule of check alpha.y, stated for every target.',
        tier: 'full',
        description: 'check alpha.y',
      },
      {
        id: 'beta.z',
        suite: 'beta',
        clause: 'Events rule 1',
        level: 'must',
        basis: 'spec',
        rule: 'The rule of check beta.z, stated for every target.',
        tier: 'quick',
        description: 'check beta.z',
      },
    ]);
    const one = await cli(['list', 'beta', '--json']);
    expect(JSON.parse(one.stdout).map((r: { id: string }) => r.id)).toEqual(['beta.z']);
  });

  test('the text names each check with level, tier and clause, its description below, one suite heading each', async () => {
    cleanup.push(
      registerAll(fakeEntry(fakeSuite('alpha', [{ id: 'alpha.longer.id', outcome: 'pass' }]).suite)),
    );
    const lines = (await cli(['list'])).stdout.trimEnd().split('\n');
    expect(lines).toEqual([
      'alpha (1 check)',
      '  alpha.longer.id  must  quick  Events rule 1',
      '    check alpha.longer.id',
      '    rule (spec): The rule of check alpha.longer.id, stated for every target.',
    ]);
  });

  test('no line is wider than the terminal, or than 100 columns when not a terminal; --json keeps every field', async () => {
    const long = `${'a rule stated at length, '.repeat(25)}for every server.`;
    const suite = fakeSuite('alpha', [{ id: 'alpha.x', outcome: 'pass' }]).suite;
    const withRule = {
      ...suite,
      checks: suite.checks.map((c) => ({ ...c, description: long, basis: 'spec' as const, rule: long })),
    };
    cleanup.push(registerAll(fakeEntry(withRule)));
    const piped = await cli(['list']);
    const widths = piped.stdout.split('\n').map((l) => l.length);
    expect(Math.max(...widths)).toBeLessThanOrEqual(100);
    expect(piped.stdout).toContain('    rule (spec): a rule stated at length,');
    let text = '';
    const code = await main(['node', 'wirecheck', 'list'], {
      stdout: { write: (s: string) => (text += s), isTTY: true, columns: 60 },
      stderr: { write: () => true },
      stdin: Readable.from([]),
      env: {},
      deps: {},
      onShutdown: () => ({ signal: new AbortController().signal, dispose: () => {} }),
    });
    expect(code).toBe(0);
    expect(Math.max(...text.split('\n').map((l) => l.length))).toBeLessThanOrEqual(60);
    expect(text.replace(/\s+/g, ' ')).toContain(long);
    const json = JSON.parse((await cli(['list', '--json'])).stdout);
    expect(json[0]).toMatchObject({ id: 'alpha.x', basis: 'spec', rule: long, description: long });
  });

  test('an unknown suite is exit 2', async () => {
    expect((await cli(['list', 'nope'])).code).toBe(2);
  });
});

describe('wirecheck --version and usage', () => {
  test('--version prints the package version', async () => {
    const run = await cli(['--version']);
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe(VERSION);
  });

  test('an unknown command is exit 2', async () => {
    const run = await cli(['frobnicate']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('WC_USAGE');
  });

  test('serve and messages-client are offered only when their implementation is given', async () => {
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).not.toContain('messages-client');
    expect((await cli(['serve', 'messages'])).code).toBe(2);
  });
});

describe('wirecheck serve messages', () => {
  function fakeStart() {
    const calls: MockMessagesServeOptions[] = [];
    let closed = 0;
    const start: StartMockMessagesService = async (options) => {
      calls.push(options);
      return {
        url: `http://${options.host}:4567`,
        close: async () => {
          closed++;
        },
      };
    };
    return { start, calls, closed: () => closed };
  }

  test('prints the URL first, serves until shutdown, then closes the service', async () => {
    const fake = fakeStart();
    const stop = new AbortController();
    const pending = cli(['serve', 'messages'], {
      deps: { startMockMessagesService: fake.start },
      shutdown: stop.signal,
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(fake.closed()).toBe(0);
    stop.abort();
    const run = await pending;
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('http://127.0.0.1:4567\n');
    expect(fake.calls).toEqual([{ host: '127.0.0.1', port: 0, model: 'echo' }]);
    expect(fake.closed()).toBe(1);
  });

  test('options, --faults and the --fault-* flags reach the mock as one fault plan', async () => {
    const fake = fakeStart();
    const stop = new AbortController();
    stop.abort();
    const args = [
      'serve',
      'messages',
      '--port',
      '8080',
      '--host',
      '0.0.0.0',
      '--model',
      'bash',
      '--seed',
      '4',
    ];
    args.push('--fixtures', 'fixtures/messages', '--fault-status', '529', '--fault-disconnect-after', '3');
    args.push(
      '--fault-line-ending',
      'crlf',
      '--faults',
      '{"bom":true,"lineEnding":"cr"}',
      '--fault-random-chunks',
    );
    const run = await cli(args, { deps: { startMockMessagesService: fake.start }, shutdown: stop.signal });
    expect(run.code).toBe(0);
    expect(fake.calls).toEqual([
      {
        host: '0.0.0.0',
        port: 8080,
        model: 'bash',
        seed: 4,
        fixturesDir: 'fixtures/messages',
        faults: {
          bom: true,
          lineEnding: 'crlf',
          httpError: { status: 529 },
          disconnectAfterFrame: 3,
          chunking: { mode: 'random' },
        },
      },
    ]);
  });

  test('bad values are usage errors, a failed start is WC_SERVE_FAILED', async () => {
    const fake = fakeStart();
    const deps = { startMockMessagesService: fake.start };
    expect((await cli(['serve', 'messages', '--port', '70000'], { deps })).code).toBe(2);
    const badModel = await cli(['serve', 'messages', '--model', 'gpt'], { deps });
    expect(badModel.stderr).toContain('--model is echo or bash');
    expect((await cli(['serve', 'messages', '--faults', '{"bom":'], { deps })).stderr).toContain(
      '--faults is not JSON',
    );
    const badPlan = await cli(['serve', 'messages', '--faults', '{"stall":{"afterFrame":-1}}'], { deps });
    expect(badPlan.code).toBe(2);
    expect(badPlan.stderr).toContain('WC_USAGE: --faults: stall.afterFrame: ');
    // A misspelt fault was dropped without a word: the mock started with no fault at all.
    const typo = await cli(['serve', 'messages', '--faults', '{"chunkng":{"mode":"random"}}'], { deps });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain(
      'WC_USAGE: --faults: (top level): unknown key "chunkng" (expected one of: seed, chunking,',
    );
    const nested = '{"chunking":{"mode":"random","maxbytes":4}}';
    const nestedTypo = await cli(['serve', 'messages', '--faults', nested], { deps });
    expect(nestedTypo.code).toBe(2);
    expect(nestedTypo.stderr).toContain(
      '--faults: chunking: unknown key "maxbytes" (expected one of: mode, minBytes, maxBytes)',
    );
    const badRate = await cli(['serve', 'messages', '--fault-pings', '2'], { deps });
    expect(badRate.stderr).toContain('--fault-pings is a probability between 0 and 1');
    expect(fake.calls).toEqual([]);
    const failing = await cli(['serve', 'messages'], {
      deps: {
        startMockMessagesService: async () => {
          throw new Error('listen EADDRINUSE');
        },
      },
    });
    expect(failing.code).toBe(2);
    expect(failing.stderr).toContain('WC_SERVE_FAILED: mock messages service: listen EADDRINUSE');
  });
});

describe('wirecheck messages-client', () => {
  test('hands stdin and the environment to the reference client and relays its output and exit code', async () => {
    const seen: { stdin: string; env: NodeJS.ProcessEnv }[] = [];
    const run: RunMessagesClientCommand = async ({ stdin, env }) => {
      seen.push({ stdin, env });
      return { stdout: '{"error":{"kind":"missing_api_key"}}\n', stderr: 'no key\n', exitCode: 4 };
    };
    const env = { WIRECHECK_BASE_URL: 'http://127.0.0.1:1' };
    const result = await cli(['messages-client'], {
      deps: { runMessagesClientCommand: run },
      stdin: '{"model":"m"}',
      env,
    });
    expect(result).toEqual({ code: 4, stdout: '{"error":{"kind":"missing_api_key"}}\n', stderr: 'no key\n' });
    expect(seen).toEqual([{ stdin: '{"model":"m"}', env }]);
  });
});
