import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { readFixtureFile, type ToolSession } from '../../../src/fixtures/index.js';
import {
  recordStdioSession,
  startSseRecordingProxy,
  startStreamableHttpRecordingProxy,
} from '../../../src/recording/tools/index.js';

/** Lowered from 64 MiB so a flood of a few hundred KiB passes it. */
const LIMIT = 32 * 1024;
const PAD = 'p'.repeat(1000);
const NOTE = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { pad: PAD } });
/** 200 notifications of about 1 KiB: some 6 times the limit. */
const COUNT = 200;

let dir: string;
const servers: Server[] = [];
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wirecheck-cut-marker-'));
});
afterAll(async () => {
  for (const s of servers) s.closeAllConnections();
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  await rm(dir, { recursive: true, force: true });
});

async function listen(handler: (req: import('node:http').IncomingMessage, res: ServerResponse) => void) {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** The one session file written to `out`, its text and the session read back. */
async function onlySession(out: string) {
  const files = (await readdir(out)).filter((f) => f.endsWith('.json'));
  expect(files).toHaveLength(1);
  const file = join(out, files[0]!);
  return { text: await readFile(file, 'utf8'), session: (await readFixtureFile(file)) as ToolSession };
}

/** The marker every transport's cut session carries, in the file itself. */
function expectCut(text: string, session: ToolSession) {
  expect(session.truncated).toBe(true);
  expect(session.unrecordedBytes).toBeGreaterThan(0);
  // The file is under the limit plus its head, end and pretty-printing: the cut happened.
  expect(Buffer.byteLength(text)).toBeLessThan(LIMIT + 8 * 1024);
  expect(text).toMatch(/"truncated": true,\n {2}"unrecordedBytes": \d+,/);
}

describe('a tool session cut at the recording limit is marked so in its file, over every transport', () => {
  test('stdio: a server flooding its stdout past recordLimit', async () => {
    const out = join(dir, 'stdio');
    const script = `const l=${JSON.stringify(`${NOTE}\n`)};process.stdout.write(l.repeat(${COUNT}));`;
    let relayed = 0;
    const recording = await recordStdioSession({
      command: `'${process.execPath}' -e '${script.replace(/'/g, `'\\''`)}'`,
      input: (async function* () {})(),
      write: (b) => {
        relayed += b.length;
      },
      writeError: () => {},
      outDir: out,
      recordLimit: LIMIT,
    });
    // The client still got every byte; only the recording stopped.
    expect(relayed).toBe((NOTE.length + 1) * COUNT);
    expect(recording.exit.code).toBe(0);
    const { text, session } = await onlySession(out);
    expectCut(text, session);
    expect(session.exit).toEqual({ code: 0, signal: null });
    expect(session.messages.length).toBeGreaterThan(0);
    expect(session.messages.length).toBeLessThan(COUNT);
  });

  test('Streamable HTTP: an answer stream flooding past recordLimit', async () => {
    const out = join(dir, 'http');
    const frame = `event: message\ndata: ${NOTE}\n\n`;
    const upstream = await listen((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'mcp-session-id': 'flood-1' });
        res.end(frame.repeat(COUNT));
      });
    });
    const proxy = await startStreamableHttpRecordingProxy({
      upstream: `${upstream}/mcp`,
      outDir: out,
      recordLimit: LIMIT,
    });
    let got = 0;
    try {
      const body = JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: {} });
      await new Promise<void>((resolve, reject) => {
        request(proxy.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        })
          .on('response', (res) => {
            res.on('data', (b: Buffer) => {
              got += b.length;
            });
            res.on('end', resolve);
          })
          .on('error', reject)
          .end(body);
      });
      await proxy.settled();
    } finally {
      // The session was never DELETEd: it ends, and is written, with the proxy.
      await proxy.close();
    }
    expect(got).toBe(frame.length * COUNT);
    const { text, session } = await onlySession(out);
    expectCut(text, session);
    expect(session.messages[0]?.direction).toBe('client->server');
  });

  test('SSE: the stream ends truncated as before, and the session carries the same marker', async () => {
    const out = join(dir, 'sse');
    const frame = `event: message\ndata: ${NOTE}\n\n`;
    const upstream = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`event: endpoint\ndata: /messages?sessionId=s1\n\n${frame.repeat(COUNT)}`);
    });
    const proxy = await startSseRecordingProxy({
      upstream: `${upstream}/sse`,
      outDir: out,
      recordLimit: LIMIT,
    });
    try {
      await new Promise<void>((resolve, reject) => {
        request(proxy.url, (res) => {
          res.resume();
          res.on('end', resolve);
        })
          .on('error', reject)
          .end();
      });
      await proxy.settled();
    } finally {
      await proxy.close();
    }
    const { text, session } = await onlySession(out);
    expectCut(text, session);
    expect(session.stream?.end).toBe('truncated');
  });

  test('a session within the limit carries no marker', async () => {
    const out = join(dir, 'whole');
    await recordStdioSession({
      command: `'${process.execPath}' -e 'process.stdout.write(${JSON.stringify(`${NOTE}\n`)})'`,
      input: (async function* () {})(),
      write: () => {},
      writeError: () => {},
      outDir: out,
      recordLimit: LIMIT,
    });
    const { text, session } = await onlySession(out);
    expect(session.truncated).toBeUndefined();
    expect(session.unrecordedBytes).toBeUndefined();
    expect(text).not.toContain('truncated');
  });
});
