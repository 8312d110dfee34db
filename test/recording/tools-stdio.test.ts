import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ToolClient } from '../../src/clients/tools/index.js';
import { readFixtureFile, type ToolSession, validateFixture } from '../../src/fixtures/index.js';
import { classifyMessage } from '../../src/protocol/jsonrpc/index.js';
import { recordStdioSession } from '../../src/recording/tools/index.js';
import { ChildProcessTransport } from '../../src/transports/index.js';

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin/wirecheck.js');
const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wirecheck-record-tools-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The recorder as a stdio server command, around the reference server over stdio. */
function recorderCommand(
  out: string,
  server = `${q(process.execPath)} ${q(BIN)} serve tools --transport stdio`,
) {
  return `${q(process.execPath)} ${q(BIN)} record tools --stdio ${q(server)} --out ${q(out)}`;
}

describe('wirecheck record tools --stdio (spec "Tool server, stdio transport")', () => {
  test('relays a whole session unchanged, stdout protocol-only, and records every message in order with monotonic times', async () => {
    const out = join(dir, 'stdio');
    const warnings: string[] = [];
    const transport = new ChildProcessTransport(recorderCommand(out));
    const client = new ToolClient(transport, { onWarning: (w) => warnings.push(w) });
    let results: unknown[];
    try {
      const init = await client.connect();
      expect(init.serverInfo.name).toBe('wirecheck-reference-tools');
      const tools = await client.listTools();
      const echo = await client.callTool('echo', { text: 'recorded through the relay' });
      const sum = await client.callTool('add', { a: 2, b: 40 });
      await client.ping();
      results = [tools.tools.map((t) => t.name), echo, sum];
    } finally {
      await client.close();
    }
    // Any non-JSON line on stdout would have ended the transport with a fatal error.
    expect(warnings).toEqual([]);
    expect(results[0]).toEqual(expect.arrayContaining(['echo', 'add', 'diagnostic']));
    expect(JSON.stringify(results[1])).toContain('recorded through the relay');

    // The recorder writes its file when the server exits, just after the client closed.
    let files: string[] = [];
    for (let i = 0; i < 100 && files.length === 0; i++) {
      files = await readdir(out).catch(() => []);
      if (files.length === 0) await new Promise((r) => setTimeout(r, 50));
    }
    expect(files).toHaveLength(1);
    const session = (await readFixtureFile(join(out, files[0]!))) as ToolSession;
    expect(session.kind).toBe('tool-session');
    expect(session.transport).toBe('stdio');
    expect(session.server).toContain('serve tools --transport stdio');
    const shape = session.messages.map((m) => {
      const c = classifyMessage(JSON.parse(m.text));
      const what = c.kind === 'request' || c.kind === 'notification' ? c.message.method : c.kind;
      return `${m.direction} ${what}`;
    });
    expect(shape).toEqual([
      'client->server initialize',
      'server->client success',
      'client->server notifications/initialized',
      'client->server tools/list',
      'server->client success',
      'client->server tools/call',
      'server->client success',
      'client->server tools/call',
      'server->client success',
      'client->server ping',
      'server->client success',
    ]);
    const times = session.messages.map((m) => m.atMs);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(session.exit).toEqual({ code: 0, signal: null });
    expect(validateFixture(session)).toMatchObject({ ok: true });
  }, 30_000);
});

describe('wirecheck record tools --stdio: credentials written into the server command', () => {
  test('the values of its credential variables and flags are scrubbed from every message, not only from `server`', async () => {
    const token = 'tok-0123456789abcdef';
    const flag = 'tk-flag-0123456789';
    const out = join(dir, 'command-secrets');
    // `cat` answers each line with itself: a server echoing what carries its credentials.
    const command = `API_TOKEN=${token} sh -c 'exec cat' server --token ${flag}`;
    const line = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { token, flag } });
    const written: string[] = [];
    const { session } = await recordStdioSession({
      command,
      input: Readable.from([`${line}\n`]),
      write: (bytes) => {
        written.push(Buffer.from(bytes).toString());
      },
      writeError: () => {},
      env: { PATH: process.env.PATH },
      outDir: out,
    });
    // The relay passes what the server wrote; the recording holds none of it.
    expect(written.join('')).toContain(token);
    const [file] = await readdir(out);
    const text = await readFile(join(out, file!), 'utf8');
    expect(text).not.toContain(token);
    expect(text).not.toContain(flag);
    expect(session?.server).toBe("API_TOKEN=[redacted] sh -c 'exec cat' server --token [redacted]");
    expect(session?.messages.map((m) => m.text)).toEqual([
      '{"jsonrpc":"2.0","id":1,"method":"ping","params":{"token":"[redacted]","flag":"[redacted]"}}',
      '{"jsonrpc":"2.0","id":1,"method":"ping","params":{"token":"[redacted]","flag":"[redacted]"}}',
    ]);
  });
});
