import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import { ToolClient } from '../../../src/clients/tools/index.js';
import { mockToolServerCommand, readJournalFile } from '../../../src/mocks/tools/index.js';
import { StreamableHttpClientTransport } from '../../../src/transports/index.js';
import { buildDist, distIsFresh } from '../../global-setup.js';

const BIN = fileURLToPath(new URL('../../../bin/wirecheck.js', import.meta.url));
const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 't', version: '1' } },
});

/** `wirecheck serve mock-tools --transport http` on a free port, with more options. */
function serveHttpMock(...options: string[]) {
  return spawn(
    process.execPath,
    [BIN, 'serve', 'mock-tools', '--transport', 'http', '--port', '0', ...options],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
}

/** The first line the server prints on standard output (its URL). */
function firstLine(child: ChildProcessWithoutNullStreams | ReturnType<typeof spawn>): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('\n')) resolve(out.split('\n')[0]!);
    });
    child.on('exit', () => reject(new Error(`exited early: ${out}`)));
  });
}

let dir: string;
beforeAll(() => {
  if (!distIsFresh()) buildDist();
}, 120_000);
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('wirecheck serve mock-tools', () => {
  test('--transport stdio answers a last message its input ends without a newline after', () => {
    const command = mockToolServerCommand({});
    const run = spawnSync('sh', ['-c', command], { input: INIT, encoding: 'utf8', timeout: 20_000 });
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout.trim())).toMatchObject({ id: 1, result: { protocolVersion: '2024-11-05' } });
  }, 30_000);

  for (const launcher of ['cli', 'direct'] as const) {
    test(`--transport stdio (${launcher} launcher) answers on stdout only and journals to the file`, async () => {
      dir = await mkdtemp(join(tmpdir(), 'wc-serve-tools-'));
      const scenarioFile = join(dir, 'scenario.json');
      const journalFile = join(dir, 'journal.jsonl');
      await writeFile(scenarioFile, JSON.stringify({ faults: { notifications: 1 } }));
      const command = mockToolServerCommand({ scenarioFile, journalFile, launcher });
      const run = spawnSync('sh', ['-c', command], { input: `${INIT}\n`, encoding: 'utf8', timeout: 20_000 });
      expect(run.status).toBe(0);
      const lines = run.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(lines).toHaveLength(2);
      expect(lines[0].method).toMatch(/^notifications\/x-wirecheck\//);
      expect(lines[1]).toMatchObject({ id: 1, result: { protocolVersion: '2024-11-05' } });
      const journal = await readJournalFile(journalFile);
      expect(journal.map((e) => `${e.direction}:${e.kind}`)).toEqual([
        'received:message',
        'sent:message',
        'sent:message',
        'received:closed',
      ]);
    }, 30_000);
  }

  test('an invalid scenario file is a usage error (exit 2) naming the field', async () => {
    dir = await mkdtemp(join(tmpdir(), 'wc-serve-tools-'));
    const scenarioFile = join(dir, 'bad.json');
    await writeFile(scenarioFile, JSON.stringify({ faults: { endpoint: 'sideways' } }));
    const run = spawnSync(
      process.execPath,
      [BIN, 'serve', 'mock-tools', '--transport', 'stdio', '--scenario', scenarioFile],
      {
        input: '',
        encoding: 'utf8',
        timeout: 20_000,
      },
    );
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('faults.endpoint');
    expect(run.stdout).toBe('');
  }, 30_000);

  test('--transport sse prints the stream URL first and stops on SIGTERM with exit 0', async () => {
    const child = spawn(process.execPath, [BIN, 'serve', 'mock-tools', '--transport', 'sse', '--port', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const url = await firstLine(child);
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/sse$/);
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
  }, 30_000);

  test('--transport http prints the endpoint URL, answers initialize with a session id, stops on SIGTERM with exit 0', async () => {
    const child = serveHttpMock();
    try {
      const url = await firstLine(child);
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      const r = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: INIT,
      });
      expect(r.status).toBe(200);
      expect(r.headers.get('mcp-session-id')).toMatch(/^[\x21-\x7e]+$/);
      // No scenario, no --protocol: over http the mock speaks 2025-03-26, the first revision with it.
      expect(await r.text()).toContain('"protocolVersion":"2025-03-26"');
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
  }, 30_000);

  for (const [revision, header] of [
    ['2025-03-26', undefined],
    ['2025-11-25', '2025-11-25'],
  ] as const) {
    test(`--protocol ${revision} over http: the mock answers it; the reference client with --protocol ${revision} ${header === undefined ? 'sends no MCP-Protocol-Version' : 'sends it'}`, async () => {
      dir = await mkdtemp(join(tmpdir(), 'wc-serve-tools-'));
      const journalFile = join(dir, 'journal.jsonl');
      const child = serveHttpMock('--protocol', revision, '--journal', journalFile);
      try {
        const url = await firstLine(child);
        const run = spawnSync(
          process.execPath,
          [
            BIN,
            'tool-client',
            '--http',
            url,
            '--protocol',
            revision,
            '--tool',
            'echo',
            '--arguments',
            '{"text":"hi"}',
          ],
          { encoding: 'utf8', timeout: 20_000 },
        );
        expect(run.status, run.stderr).toBe(0);
        expect(JSON.parse(run.stdout)).toEqual({ content: [{ type: 'text', text: '{"text":"hi"}' }] });
        const received = (await readJournalFile(journalFile)).filter((e) => e.direction === 'received');
        const init = received.find(
          (e) => (e.value as { method?: string } | undefined)?.method === 'initialize',
        );
        expect((init!.value as { params: { protocolVersion: string } }).params.protocolVersion).toBe(
          revision,
        );
        const after = received.filter((e) => e.http !== undefined && e !== init);
        expect(after.length).toBeGreaterThan(1);
        for (const e of after) expect(e.http?.headers?.['mcp-protocol-version']).toBe(header);
      } finally {
        child.kill('SIGKILL');
      }
    }, 30_000);
  }
});

describe('wirecheck serve mock-tools --transport http --replay', () => {
  test('serves a recorded session over Streamable HTTP: the client gets the recorded answers', async () => {
    const fixture = fileURLToPath(
      new URL('../../../fixtures/library/tool-sessions/stdio.json', import.meta.url),
    );
    const child = serveHttpMock('--replay', fixture, '--speed', 'max');
    const client = new ToolClient(new StreamableHttpClientTransport(await firstLine(child)));
    try {
      await client.connect();
      const listed = await client.listTools();
      expect(listed.tools.map((t) => t.name)).toContain('diagnostic');
      const result = await client.callTool('diagnostic', { verbose: false });
      expect(JSON.stringify(result)).toContain('status: ok');
      await expect(client.callTool('restart_service', {})).rejects.toThrow(/Unknown tool: restart_service/);
    } finally {
      await client.close();
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      child.kill('SIGKILL');
    }
  }, 30_000);
});

describe('wirecheck serve mock-tools --require-header', () => {
  test('a mock behind a token: 401 without it, served with it, the value read from the environment and never printed or journaled', async () => {
    dir = await mkdtemp(join(tmpdir(), 'wirecheck-mock-auth-'));
    const journalFile = join(dir, 'journal.jsonl');
    const child = spawn(
      process.execPath,
      [
        BIN,
        'serve',
        'mock-tools',
        '--transport',
        'http',
        '--port',
        '0',
        '--journal',
        journalFile,
        '--require-header',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the user's ${VAR}, expanded by wirecheck
        'Authorization: Bearer ${MOCK_TOKEN}',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, MOCK_TOKEN: 'mock-s3cret-99' } },
    );
    let stderr = '';
    child.stderr?.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    try {
      const url = await firstLine(child);
      const refused = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: INIT,
      });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toBe('Bearer');
      const client = new ToolClient(
        new StreamableHttpClientTransport(url, { headers: { Authorization: 'Bearer mock-s3cret-99' } }),
      );
      await client.connect();
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
      await client.close();
      expect(stderr).toContain('every request must carry Authorization (else 401)');
    } finally {
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      child.kill('SIGKILL');
    }
    expect(stderr).not.toContain('mock-s3cret-99');
    const journal = await readJournalFile(journalFile);
    expect(journal.length).toBeGreaterThan(0);
    expect(JSON.stringify(journal)).not.toContain('mock-s3cret-99');
  }, 30_000);

  test('with --transport stdio it is a usage error (exit 2)', () => {
    const run = spawnSync(
      process.execPath,
      [BIN, 'serve', 'mock-tools', '--transport', 'stdio', '--require-header', 'Authorization: Bearer x'],
      { encoding: 'utf8', input: '' },
    );
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/--require-header goes with --transport sse or http/);
  });
});
