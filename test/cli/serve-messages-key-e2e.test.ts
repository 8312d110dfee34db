import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { serveOptionsOf } from '../../src/cli/serve-messages.js';
import { SuiteResult } from '../../src/harness/results.js';

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin/wirecheck.js');
// Long enough to be scrubbed as a secret wherever it could appear (redact.ts: 8 characters and more).
const KEY = 'wc-e2e-serve-key-4b1d9e07c3a2';

let dirs: string[] = [];
let servers: ChildProcessWithoutNullStreams[] = [];
afterEach(async () => {
  for (const s of servers) if (s.exitCode === null && s.signalCode === null) s.kill('SIGKILL');
  servers = [];
  for (const d of dirs) await rm(d, { recursive: true, force: true });
  dirs = [];
});

/** `wirecheck serve messages ARGS` as its own process; resolves with the URL it printed first. */
async function serve(args: string[], env: NodeJS.ProcessEnv = {}) {
  const child = spawn(process.execPath, [BIN, 'serve', 'messages', '--port', '0', ...args], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: '1', ...env },
  });
  servers.push(child);
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL within 15 s; stderr: ${stderr}`)), 15_000);
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
      const line = stdout.split('\n')[0];
      if (stdout.includes('\n') && line !== undefined) {
        clearTimeout(timer);
        resolveUrl(line);
      }
    });
    child.once('exit', () => reject(new Error(`serve messages exited; stderr: ${stderr}`)));
  });
  const stop = async () => {
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    child.kill('SIGTERM');
    return { code: await exited, stdout, stderr };
  };
  return { url, stop };
}

function runSuite(url: string, reportDir: string, env: NodeJS.ProcessEnv) {
  const child = spawn(
    process.execPath,
    [
      BIN,
      'test',
      'messages-service',
      '--base-url',
      url,
      '--api-key-env',
      'WC_E2E_KEY',
      '--report-dir',
      reportDir,
    ],
    { cwd: ROOT, env: { ...process.env, NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const killer = setTimeout(() => child.kill('SIGKILL'), 150_000);
  return new Promise<{ code: number | null; output: string }>((r) =>
    child.once('close', (code) => {
      clearTimeout(killer);
      r({ code, output });
    }),
  );
}

describe('wirecheck serve messages --api-key: the messages-service suite passes against it as a service', () => {
  test('serve messages --api-key KEY on 127.0.0.1 port 0: every check of the suite passes (wrong key rejected included), and the key is never printed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wirecheck-serve-key-'));
    dirs.push(dir);
    const server = await serve(['--api-key', KEY]);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const run = await runSuite(server.url, dir, { WC_E2E_KEY: KEY });
    const stopped = await server.stop();
    const results = SuiteResult.parse(JSON.parse(await readFile(join(dir, 'results.json'), 'utf8')));
    const failed = results.checks.filter((c) => c.status === 'fail').map((c) => c.id);
    expect(failed, run.output).toEqual([]);
    expect(results.summary.failed).toBe(0);
    // The suite really ran against it (32 checks passed when written).
    expect(results.summary.passed).toBeGreaterThan(20);
    expect(run.code, run.output).toBe(0);
    expect(results.checks.find((c) => c.id === 'messages-service.auth.wrong-key-rejected')?.status).toBe(
      'pass',
    );
    expect(stopped.code).toBe(0);
    expect(`${stopped.stdout}${stopped.stderr}`).not.toContain(KEY);
    expect(stopped.stderr).toContain('accepting only the configured key');
  }, 180_000);

  test('--api-key-env VAR reads the key from the environment: another key gets 401, the key 200', async () => {
    const server = await serve(['--api-key-env', 'WC_E2E_SERVE_KEY'], { WC_E2E_SERVE_KEY: KEY });
    const post = (key: string) =>
      fetch(`${server.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key, 'service-version': '2023-06-01' },
        body: JSON.stringify({ model: 'm', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }),
        signal: AbortSignal.timeout(5_000),
      });
    try {
      expect((await post('sk-some-other-key-000000')).status).toBe(401);
      expect((await post(KEY)).status).toBe(200);
    } finally {
      const stopped = await server.stop();
      expect(`${stopped.stdout}${stopped.stderr}`).not.toContain(KEY);
    }
  }, 30_000);

  test('the key options: one of the two, a named variable must be set, an empty key is refused', () => {
    expect(serveOptionsOf({ port: '0', host: '127.0.0.1', model: 'echo', apiKey: KEY }).apiKey).toBe(KEY);
    expect(
      serveOptionsOf({ port: '0', host: '127.0.0.1', model: 'echo', apiKeyEnv: 'K' }, { K: ` ${KEY} ` })
        .apiKey,
    ).toBe(KEY);
    expect(serveOptionsOf({ port: '0', host: '127.0.0.1', model: 'echo' }).apiKey).toBeUndefined();
    expect(() =>
      serveOptionsOf(
        { port: '0', host: '127.0.0.1', model: 'echo', apiKey: KEY, apiKeyEnv: 'K' },
        { K: KEY },
      ),
    ).toThrow('give one');
    expect(() => serveOptionsOf({ port: '0', host: '127.0.0.1', model: 'echo', apiKeyEnv: 'K' }, {})).toThrow(
      'K is not set',
    );
    expect(() => serveOptionsOf({ port: '0', host: '127.0.0.1', model: 'echo', apiKey: ' ' })).toThrow(
      '--api-key must not be empty',
    );
  });
});
