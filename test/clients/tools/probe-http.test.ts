import { afterEach, describe, expect, test } from 'vitest';
import {
  formatStreamableProbeReport,
  probeStreamableHttpServer,
  runProbeCommand,
} from '../../../src/clients/tools/index.js';
import {
  type RunningMockToolServer,
  startStreamableHttpMockToolServer,
} from '../../../src/mocks/tools/index.js';
import { printedJson, runCli } from './processes.js';
import { startScriptedHttpServer } from './streamable-http-server.js';

const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function mock(faults = {}): Promise<RunningMockToolServer> {
  const s = await startStreamableHttpMockToolServer({ faults });
  servers.push(s);
  return s;
}

describe('health probe of a Streamable HTTP endpoint (wirecheck probe --http)', () => {
  test.each(['sse', 'json'] as const)(
    'a healthy server with %s answers: status, content type, session id, reply, initialized, DELETE',
    async (httpAnswer) => {
      const s = await mock({ httpAnswer });
      const report = await probeStreamableHttpServer(s.url);
      expect(report.healthy).toBe(true);
      expect(report.post).toMatchObject({
        status: 200,
        contentType: httpAnswer === 'sse' ? 'text/event-stream' : 'application/json; charset=utf-8',
      });
      expect(report.post.sessionId).toMatch(/^[0-9a-f-]{36}$/);
      // The probe offers 2025-03-26 and the mock answers its own default there, the same.
      expect(report.reply?.message).toMatchObject({ id: 1, result: { protocolVersion: '2025-03-26' } });
      expect(report).toMatchObject({ initializedStatus: 202, deleteStatus: 200 });
      const lines = formatStreamableProbeReport(report);
      expect(lines.at(-1)).toMatch(/^healthy \(\d+ ms\)$/);
      expect(lines).toContain('POST notifications/initialized: HTTP 202');
      // The DELETE ended the session: nothing is left open.
      expect(s.journal().filter((e) => e.http?.method === 'DELETE')).toHaveLength(1);
    },
  );

  test('an answer stream that ends without the reply is unhealthy, naming why; so is a 500', async () => {
    const dropped = await startScriptedHttpServer({ dropFirstCall: 'no-id', answer: 'sse', postStatus: 500 });
    servers.push(dropped);
    const report = await probeStreamableHttpServer(dropped.url);
    expect(report.healthy).toBe(false);
    expect(report.reason).toMatch(/POST initialize answered HTTP 500, expected 200/);
    const unreachable = await probeStreamableHttpServer('http://127.0.0.1:1/mcp', { budgetMs: 2000 });
    expect(unreachable.healthy).toBe(false);
    expect(unreachable.reason).toMatch(/POST initialize failed/);
  });

  test('runProbeCommand dispatches on http; `wirecheck probe --http URL --json` exits 0 for a healthy server', async () => {
    const s = await mock();
    const result = await runProbeCommand(s.url, new AbortController().signal, { http: true });
    expect(result.healthy).toBe(true);
    expect(result.lines[0]).toBe(`probe ${s.url} (Streamable HTTP)`);
    const cli = await runCli(['probe', '--http', s.url, '--json']);
    expect(cli.code).toBe(0);
    expect(printedJson(cli)).toMatchObject({ healthy: true, post: { status: 200 } });
  }, 30_000);
});
