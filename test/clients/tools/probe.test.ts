import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { Command } from 'commander';
import { afterEach, describe, expect, test } from 'vitest';
import type { CliContext } from '../../../src/cli/context.js';
import { addProbeCommand } from '../../../src/cli/probe.js';
import { formatProbeReport, probeToolServer, runProbeCommand } from '../../../src/clients/tools/index.js';
import { printedJson, runCli } from './processes.js';
import { type SseServer, type SseServerOptions, startSseServer } from './sse-server.js';

const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function sse(options: SseServerOptions = {}): Promise<SseServer> {
  const s = await startSseServer(options);
  servers.push(s);
  return s;
}

async function until(condition: () => boolean, what: string, ms = 2000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('health probe (spec "Limits": 5 s in all, 3 s stream capture; "SSE tool-server session")', () => {
  test.each([202, 200])(
    'a healthy server (POST answered %i): endpoint event, session id, POST status and the first reply are reported',
    async (status) => {
      const s = await sse({ postStatus: status });
      const report = await probeToolServer(s.url);
      expect(report.healthy).toBe(true);
      expect(report.reason).toBeUndefined();
      expect(report.stream).toMatchObject({ status: 200, contentType: 'text/event-stream' });
      expect(report.endpoint).toMatchObject({
        data: '/messages?sessionId=s1',
        url: `${s.origin}/messages?sessionId=s1`,
        sessionId: 's1',
      });
      expect(report.post?.status).toBe(status);
      expect(report.reply?.message).toMatchObject({
        jsonrpc: '2.0',
        id: 1,
        result: { protocolVersion: '2024-11-05' },
      });
      expect(report.initializedStatus).toBe(status);
      expect(s.posts).toEqual([
        expect.objectContaining({
          id: 1,
          method: 'initialize',
          params: expect.objectContaining({ protocolVersion: '2024-11-05' }),
        }),
        { jsonrpc: '2.0', method: 'notifications/initialized' },
      ]);
      await until(() => s.openStreams() === 0, 'the probe to close its stream');
      const lines = formatProbeReport(report);
      expect(lines.at(-1)).toMatch(/^healthy/);
      expect(lines.join('\n')).toContain('session s1');
    },
  );

  test('no endpoint event within the capture window: unhealthy, saying so, and the stream is closed', async () => {
    const s = await sse({ endpoint: 'none' });
    const report = await probeToolServer(s.url, { captureMs: 200 });
    expect(report.healthy).toBe(false);
    expect(report.reason).toMatch(/no `endpoint` event.*capture window of 200 ms/);
    expect(report.comments).toBe(1);
    expect(report.post).toBeUndefined();
    await until(() => s.openStreams() === 0, 'the probe to close its stream');
  });

  test('a POST answered 404: unhealthy, naming the status', async () => {
    const s = await sse({ postStatus: 404 });
    const report = await probeToolServer(s.url);
    expect(report.healthy).toBe(false);
    expect(report.post?.status).toBe(404);
    expect(report.reason).toMatch(/answered HTTP 404, expected 202 or 200/);
    await until(() => s.openStreams() === 0, 'the probe to close its stream');
  });

  test('no reply on the stream within the capture window: unhealthy', async () => {
    const s = await sse({ silentOn: 'initialize' });
    const report = await probeToolServer(s.url, { captureMs: 300 });
    expect(report.healthy).toBe(false);
    expect(report.post?.status).toBe(202);
    expect(report.reason).toMatch(/no reply to initialize/);
  });

  test('a server that never answers the GET is given up on when the budget runs out', async () => {
    const hung = createServer(() => {});
    await new Promise<void>((r) => hung.listen(0, '127.0.0.1', r));
    servers.push({
      close: () =>
        new Promise((r) => {
          hung.closeAllConnections();
          hung.close(() => r());
        }),
    });
    const { port } = hung.address() as AddressInfo;
    const report = await probeToolServer(`http://127.0.0.1:${port}/sse`, { budgetMs: 200 });
    expect(report.healthy).toBe(false);
    expect(report.reason).toMatch(/200 ms budget/);
  });

  test('a refused connection: unhealthy, with the cause', async () => {
    const report = await probeToolServer('http://127.0.0.1:1/sse');
    expect(report.healthy).toBe(false);
    expect(report.reason).toMatch(/GET http:\/\/127.0.0.1:1\/sse failed/);
  });
});

describe('`wirecheck probe`', () => {
  function program(stdin = '') {
    const out: string[] = [];
    const codes: number[] = [];
    const ctx: CliContext = {
      stdout: { write: (s: string) => out.push(s) },
      stderr: { write: () => true },
      stdin: Readable.from([stdin]),
      env: {},
      deps: {},
      onShutdown: () => ({ signal: new AbortController().signal, dispose: () => {} }),
    };
    const root = new Command('wirecheck').exitOverride();
    addProbeCommand(root, ctx, runProbeCommand, (code) => codes.push(code));
    return { root, out, codes };
  }

  test('prints what it saw as lines and exits 0 for a healthy server', async () => {
    const s = await sse();
    const p = program();
    await p.root.parseAsync(['probe', s.url], { from: 'user' });
    const text = p.out.join('');
    expect(text).toContain(`probe ${s.url}`);
    expect(text).toContain('endpoint event: "/messages?sessionId=s1"');
    expect(text).toContain('POST initialize: HTTP 202');
    expect(text).toContain('first reply: {"jsonrpc":"2.0","id":1');
    expect(p.codes).toEqual([0]);
  });

  test('--json prints the report as one JSON object; an unhealthy server exits 1', async () => {
    const s = await sse({ postStatus: 404 });
    const p = program();
    await p.root.parseAsync(['probe', s.url, '--json'], { from: 'user' });
    const report = JSON.parse(p.out.join('')) as { healthy: boolean; post: { status: number } };
    expect(report.healthy).toBe(false);
    expect(report.post.status).toBe(404);
    expect(p.codes).toEqual([1]);
  });

  test('a URL that is not http(s) is bad usage', async () => {
    const p = program();
    await expect(p.root.parseAsync(['probe', 'not-a-url'], { from: 'user' })).rejects.toMatchObject({
      code: 'WC_USAGE',
    });
  });

  test('end to end: `node bin/wirecheck.js probe URL` exits 0 for a healthy server, 1 for a POST answered 404, 2 for a bad URL', async () => {
    const healthy = await sse();
    const ok = await runCli(['probe', healthy.url]);
    expect(ok.stdout).toMatch(/\nhealthy/);
    expect(ok.code, ok.stderr).toBe(0);
    const refusing = await sse({ postStatus: 404 });
    const bad = await runCli(['probe', refusing.url, '--json']);
    expect(bad.code, bad.stderr).toBe(1);
    expect(printedJson(bad)).toMatchObject({
      healthy: false,
      reason: expect.stringContaining('HTTP 404'),
    });
    const usage = await runCli(['probe', 'ftp://x']);
    expect(usage.code, usage.stderr).toBe(2);
  });
});
