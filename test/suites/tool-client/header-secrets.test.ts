import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, expect, onTestFinished, test } from 'vitest';
import { ensureBuilt, nodeCommand } from './helpers.js';

beforeAll(ensureBuilt, 120_000);

// Hard-coded in the client (clients/echoes-header-secrets.mjs): neither its command line nor its
// environment holds them, only the headers the mock receives.
const TOKEN = 'sk-ant-api03-SECRETSECRET1234567890';
const COOKIE = 'COOKIESECRET777';

// The mock learned a client's header credentials and scrubbed them from its journal only: the
// report scrubber knew the command line's and the environment's, so a client that printed its
// token put it in report.html and junit.xml; a cookie was learned as `sid=<value>`, and its value
// repeated alone was kept.
test('credentials a client sends in its headers reach no report file, nor the console, wherever the client repeats them', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'wirecheck-header-secrets-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  const root = resolve(import.meta.dirname, '../../..');
  const run = spawnSync(
    process.execPath,
    [
      join(root, 'bin/wirecheck.js'),
      'test',
      'tool-client',
      '--client',
      nodeCommand('./clients/echoes-header-secrets.mjs'),
      '--transports',
      'http',
      '--only',
      'tool-client.http.result.,tool-client.http.initialize.',
      '--runs',
      '1',
      '--seed',
      '1',
      '--report-dir',
      dir,
    ],
    { cwd: root, env: { ...process.env, NO_COLOR: '1' }, encoding: 'utf8', timeout: 90_000 },
  );
  // The client prints the answer's body, not the result: result.printed fails, quoting its stdout and stderr.
  expect(run.status, run.stderr).toBe(1);
  expect(run.stdout).toContain('stderr: using token [redacted] and cookie [redacted]');
  const texts: Record<string, string> = { stdout: run.stdout, stderr: run.stderr };
  for (const file of ['results.json', 'junit.xml', 'report.html']) {
    texts[file] = await readFile(join(dir, file), 'utf8');
  }
  const found = Object.entries(texts).flatMap(([where, text]) =>
    [TOKEN, COOKIE].filter((secret) => text.includes(secret)).map((secret) => `${secret} in ${where}`),
  );
  expect(found).toEqual([]);
}, 120_000);
