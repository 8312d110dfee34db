import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { readCompatibilityTable, tableDifferences } from '../compatibility/tables.js';
import { ensureBuilt, runAgainst } from '../suites/messages-client/helpers.js';

// examples/anthropic-sdk-client-warm.mjs: the official-SDK adapter kept warm behind the relay
// must get the outcome its cold form has in docs/messages-compatibility.md, check for check.
const SDK = '@anthropic-ai/sdk 1.12.0';
const EXAMPLE = resolve(import.meta.dirname, '../../examples/anthropic-sdk-client-warm.mjs');

let dir: string;
let server: ChildProcessWithoutNullStreams | undefined;
beforeAll(async () => {
  ensureBuilt();
  dir = await mkdtemp(join(tmpdir(), 'wc-warm-sdk-'));
}, 60_000);
afterAll(async () => {
  if (server !== undefined && server.exitCode === null) server.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

test(`${SDK} kept warm (examples/anthropic-sdk-client-warm.mjs): every check gets its cold outcome from the table`, async () => {
  server = spawn(process.execPath, [EXAMPLE, join(dir, 'sdk.sock')]);
  let stderr = '';
  server.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const command = await new Promise<string>((done, reject) => {
    let stdout = '';
    const timer = setTimeout(
      () => reject(new Error(`no command line within 15 s; stderr: ${stderr}`)),
      15_000,
    );
    server!.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
      if (!stdout.includes('\n')) return;
      clearTimeout(timer);
      done(stdout.split('\n')[0]!);
    });
  });
  expect(command).toMatch(/^perl .*warm-relay\.pl .*sdk\.sock$/);
  // The quick tier's own property runs, as the table's column was measured.
  const result = await runAgainst(command, { runs: undefined });
  const table = await readCompatibilityTable('messages-client');
  expect(tableDifferences('messages-client', table, SDK, result)).toEqual([]);
  server.kill('SIGTERM');
  expect(await new Promise((done) => server!.on('close', done))).toBe(0);
  // The SDK's own console lines (a malformed frame the mock sent) go to the server's stderr; no case failed.
  expect(stderr).not.toContain('a case failed');
}, 240_000);
