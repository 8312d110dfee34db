import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { describe, expect, test } from 'vitest';
import { commanderOptionOf, targetOptionUnion } from '../../../src/cli/options.js';
import { TargetUnavailable } from '../../../src/harness/check.js';
import { UsageError } from '../../../src/harness/errors.js';
import { runSuite } from '../../../src/harness/run-suite.js';
import { SUITES } from '../../../src/suites/registry.js';
import {
  describeTarget,
  targetArgs,
  toolServerTargetFromOptions,
} from '../../../src/suites/tool-server/index.js';
import {
  headerScrubber,
  headerSecrets,
  headersToSend,
  parseHeaders,
} from '../../../src/suites/tool-server/target-headers.js';
import { cli } from '../../cli/fake-suites.js';
import { freePort, testSuite } from './helpers.js';

describe('tool-server target options (TARGETS.md tool-server)', () => {
  test('--stdio CMD, or --sse URL with an optional --start CMD', () => {
    expect(toolServerTargetFromOptions({ stdio: 'node s.js' })).toEqual({
      kind: 'stdio',
      command: 'node s.js',
    });
    const sse = toolServerTargetFromOptions({ sse: 'http://127.0.0.1:8000/sse', start: 'node s.js' });
    expect(sse).toEqual({ kind: 'sse', url: 'http://127.0.0.1:8000/sse', start: 'node s.js' });
    expect(targetArgs(sse)).toEqual(['--sse', 'http://127.0.0.1:8000/sse', '--start', 'node s.js']);
  });

  test('--start-timeout SECONDS: how long the server may take to start, kept in the reproduce line', () => {
    const stdio = toolServerTargetFromOptions({ stdio: 'npx -y some-server', startTimeout: '45' });
    expect(stdio).toEqual({ kind: 'stdio', command: 'npx -y some-server', startTimeoutMs: 45_000 });
    expect(targetArgs(stdio)).toEqual(['--stdio', 'npx -y some-server', '--start-timeout', '45']);
    const http = toolServerTargetFromOptions({
      http: 'http://127.0.0.1:1/mcp',
      start: 's',
      startTimeout: '2.5',
    });
    expect(http).toMatchObject({ startTimeoutMs: 2500 });
    for (const bad of ['0', '-3', 'soon', '601', '']) {
      expect(() => toolServerTargetFromOptions({ stdio: 'a', startTimeout: bad })).toThrow(
        /--start-timeout takes/,
      );
    }
  });

  test('no target, both transports, --start without --sse, or a URL that is not http are usage errors', () => {
    expect(() => toolServerTargetFromOptions({})).toThrow(UsageError);
    expect(() => toolServerTargetFromOptions({ stdio: 'a', sse: 'http://x/sse' })).toThrow(UsageError);
    expect(() => toolServerTargetFromOptions({ stdio: 'a', start: 'b' })).toThrow(UsageError);
    expect(() => toolServerTargetFromOptions({ sse: 'ftp://x/sse' })).toThrow(UsageError);
  });

  test("--header 'Name: value', repeatable: split at the first colon, both sides trimmed", () => {
    const target = toolServerTargetFromOptions({
      http: 'http://127.0.0.1:8000/mcp',
      header: ['X-Tenant:  acme ', 'X-Trace: a:b:c'],
    });
    expect(target).toMatchObject({
      headers: [
        { name: 'X-Tenant', value: 'acme', given: 'acme' },
        { name: 'X-Trace', value: 'a:b:c', given: 'a:b:c' },
      ],
    });
    expect(headersToSend(target)).toEqual({
      origin: 'http://127.0.0.1:8000',
      headers: { 'X-Tenant': 'acme', 'X-Trace': 'a:b:c' },
    });
    expect(targetArgs(target)).toEqual([
      '--http',
      'http://127.0.0.1:8000/mcp',
      '--header',
      'X-Tenant: acme',
      '--header',
      'X-Trace: a:b:c',
    ]);
    // Shown in the reproduce line, so not scrubbed from results (it would garble them).
    expect(headerSecrets(target)).toEqual([]);
    // One value, as the programmatic API may pass it.
    expect(parseHeaders('X-One: 1')).toEqual([{ name: 'X-One', value: '1', given: '1' }]);
    expect(headersToSend(toolServerTargetFromOptions({ sse: 'http://x/sse' }))).toBeUndefined();
  });

  test(`--header \${VAR} is read from the environment; the reports keep \${VAR}`, () => {
    const env = { MCP_TOKEN: 'from-the-env-123' };
    expect(parseHeaders([`Authorization: Bearer \${MCP_TOKEN}`], env)).toEqual([
      { name: 'Authorization', value: 'Bearer from-the-env-123', given: `Bearer \${MCP_TOKEN}` },
    ]);
    process.env.WIRECHECK_TARGET_TEST_TOKEN = 'from-the-env-456';
    let target: ReturnType<typeof toolServerTargetFromOptions>;
    try {
      target = toolServerTargetFromOptions({
        sse: 'http://127.0.0.1:8000/sse',
        header: [`Authorization: Bearer \${WIRECHECK_TARGET_TEST_TOKEN}`],
      });
    } finally {
      delete process.env.WIRECHECK_TARGET_TEST_TOKEN;
    }
    expect(headersToSend(target)?.headers).toEqual({ Authorization: 'Bearer from-the-env-456' });
    expect(headerSecrets(target)).toEqual(['Bearer from-the-env-456']);
    expect(targetArgs(target)).toEqual([
      '--sse',
      'http://127.0.0.1:8000/sse',
      '--header',
      `Authorization: Bearer \${WIRECHECK_TARGET_TEST_TOKEN}`,
    ]);
    expect(JSON.stringify([targetArgs(target), describeTarget(target)])).not.toContain('from-the-env-456');
    expect(describeTarget(target)).toContain('--header Authorization');
    expect(() => parseHeaders([`Authorization: Bearer \${WIRECHECK_NO_SUCH_VAR_XYZ}`], {})).toThrow(
      /WIRECHECK_NO_SUCH_VAR_XYZ.*not set/,
    );
  });

  test('a credential header given literally shows as [redacted] in the reproduce line and the description', () => {
    const target = toolServerTargetFromOptions({
      http: 'http://127.0.0.1:8000/mcp',
      header: ['Authorization: Bearer literal-secret-789', 'X-Api-Key: k3y-literal-000', 'X-Tenant: acme'],
    });
    expect(targetArgs(target)).toEqual([
      '--http',
      'http://127.0.0.1:8000/mcp',
      '--header',
      'Authorization: [redacted]',
      '--header',
      'X-Api-Key: [redacted]',
      '--header',
      'X-Tenant: acme',
    ]);
    const shown = JSON.stringify([targetArgs(target), describeTarget(target)]);
    expect(shown).not.toContain('literal-secret-789');
    expect(shown).not.toContain('k3y-literal-000');
    // What reports hide is scrubbed from them; what the reproduce line shows is not (X-Tenant).
    expect(headerSecrets(target)).toEqual(['Bearer literal-secret-789', 'k3y-literal-000']);
    // The credential after its scheme is hidden on its own too; a value under 8 characters is not.
    const scrub = headerScrubber(headerSecrets(target));
    expect(scrub?.('token literal-secret-789 refused; key k3y-literal-000')).toBe(
      'token [redacted] refused; key [redacted]',
    );
    expect(headerScrubber(['short'])).toBeUndefined();
  });

  test('the CLI collects every --header given, in order (a repeatable target option)', () => {
    const command = new Command().exitOverride();
    for (const option of targetOptionUnion(SUITES, [])) command.addOption(commanderOptionOf(option));
    command.parse(['--sse', 'http://x/sse', '--header', 'A: 1', '--header', 'B: 2'], { from: 'user' });
    expect(command.opts()).toMatchObject({ sse: 'http://x/sse', header: ['A: 1', 'B: 2'] });
  });

  test('--header errors: no colon, a bad name, an empty value, a name the suite sets, twice, or with --stdio', () => {
    const sse = 'http://127.0.0.1:8000/sse';
    const bad: [unknown, RegExp][] = [
      ['Authorization Bearer x', /--header takes 'Name: value', got "Authorization Bearer x"/],
      [': x', /--header needs an HTTP header name before the colon, got ": x"/],
      ['Bad Name: x', /--header needs an HTTP header name/],
      ['X-Empty:  ', /--header X-Empty has an empty value/],
      ['X-Line: a\nb', /control character/],
      [
        'X-Snow: caf\u00e9\u2603',
        /--header X-Snow: the value holds U\+2603 at character 5, which a header cannot carry/,
      ],
      [['X-A: 1', 'x-a: 2'], /--header x-a is given twice/],
    ];
    for (const [header, why] of bad) {
      expect(() => toolServerTargetFromOptions({ sse, header })).toThrow(UsageError);
      expect(() => toolServerTargetFromOptions({ sse, header })).toThrow(why);
    }
    // Latin-1 is what a header carries: sent as one byte each.
    expect(() => toolServerTargetFromOptions({ sse, header: 'X-Name: caf\u00e9' })).not.toThrow();
    for (const owned of [
      'Content-Type',
      'content-length',
      'Accept',
      'Host',
      'Mcp-Session-Id',
      'MCP-Protocol-Version',
      'Last-Event-ID',
      'Origin',
    ]) {
      expect(() => toolServerTargetFromOptions({ sse, header: [`${owned}: x`] })).toThrow(
        new RegExp(`--header ${owned}: wirecheck sets ${owned} itself`),
      );
    }
    expect(() => toolServerTargetFromOptions({ stdio: 'node s.js', header: ['X-A: 1'] })).toThrow(
      /--header goes with --sse or --http only/,
    );
  });

  test('a command that cannot be started, or a URL nobody answers, makes the target unavailable', async () => {
    await expect(
      runSuite(testSuite, { kind: 'stdio', command: 'wirecheck-no-such-command-xyz' }),
    ).rejects.toThrow(TargetUnavailable);
    const port = await freePort();
    await expect(runSuite(testSuite, { kind: 'sse', url: `http://127.0.0.1:${port}/sse` })).rejects.toThrow(
      TargetUnavailable,
    );
  });
});

describe('a credential written into the target URL reaches no report (docs/security.md)', () => {
  test('--http URL?api_key=KEY to a server that answers 401 quoting the URL: no report, line or message holds KEY', async () => {
    const key = 'sk-live-0123456789';
    // A careless server: it refuses, echoing the request URL, key and all.
    const server = createServer((req, res) => {
      req.resume();
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: `unauthorized: ${req.url}` }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const dir = await mkdtemp(join(tmpdir(), 'wirecheck-target-secrets-'));
    try {
      const url = `http://127.0.0.1:${port}/mcp?api_key=${key}`;
      const run = await cli(['test', 'tool-server', '--http', url, '--report-dir', dir]);
      expect(run.code).toBe(2);
      // The 401 was quoted: the message says why, without the key.
      expect(run.stderr).toContain('401');
      expect(run.stdout).toContain(`streamable http: http://127.0.0.1:${port}/mcp?api_key=[redacted]`);
      const files = await readdir(dir);
      expect(files).toEqual(expect.arrayContaining(['results.json', 'junit.xml']));
      const reports = await Promise.all(files.map((f) => readFile(join(dir, f), 'utf8')));
      for (const text of [run.stdout, run.stderr, ...reports]) expect(text).not.toContain(key);
    } finally {
      await rm(dir, { recursive: true, force: true });
      await new Promise((resolve) => server.close(resolve));
    }
  }, 20_000);
});
