import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, test } from 'vitest';
import { probeToolServer, ToolClient } from '../../../src/clients/tools/index.js';
import {
  ChildProcessTransport,
  SseClientTransport,
  StreamableHttpClientTransport,
} from '../../../src/transports/index.js';
import { type RunningTarget, startSseTarget, targetCommand } from '../../hostile/targets.js';

const running: RunningTarget[] = [];
const clients: ToolClient[] = [];
const servers: Server[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  for (const t of running.splice(0)) await t.stop();
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/** A server on 127.0.0.1 that takes each request and answers with `answer` (or never). */
async function stalling(answer: (res: import('node:http').ServerResponse) => void): Promise<string> {
  const server = createServer((req, res) => {
    req.resume();
    answer(res);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

async function sseTarget(name: string): Promise<RunningTarget> {
  const t = await startSseTarget(name);
  running.push(t);
  return t;
}

async function connectError(client: ToolClient): Promise<Error> {
  clients.push(client);
  try {
    await client.connect();
  } catch (e) {
    return e as Error;
  }
  throw new Error('connect() resolved');
}

describe('health probe: bounded on a hostile stream', () => {
  test('a line that never ends makes the server unhealthy, naming the line limit, within the budget', async () => {
    const t = await sseTarget('endless-line');
    const report = await probeToolServer(t.url);
    expect(report.healthy).toBe(false);
    expect(report.reason).toContain('maxLineLength');
    expect(report.durationMs).toBeLessThan(5000);
  });

  test('a frame that never ends makes the server unhealthy, naming the frame limit', async () => {
    const t = await sseTarget('endless-frame');
    const report = await probeToolServer(t.url);
    expect(report.healthy).toBe(false);
    expect(report.reason).toContain('maxFrameLength');
  });
});

describe('reference tool client: bounded on a hostile server', () => {
  test('over SSE, a reply line that never ends fails initialize naming the limit', async () => {
    const t = await sseTarget('endless-line');
    const error = await connectError(new ToolClient(new SseClientTransport(t.url), { timeoutMs: 20_000 }));
    expect(error.message).toContain('maxLineLength');
  });

  test('over stdio, a reply line that never ends fails initialize naming the limit', async () => {
    const transport = new ChildProcessTransport(targetCommand('endless-line', '--transport', 'stdio'));
    const error = await connectError(new ToolClient(transport, { timeoutMs: 20_000 }));
    expect(error.message).toContain('maxLineBytes');
  });

  test('over stdio, a reply nested a million levels deep fails initialize naming the depth limit', async () => {
    const transport = new ChildProcessTransport(targetCommand('deep-nesting', '--transport', 'stdio'));
    const error = await connectError(new ToolClient(transport, { timeoutMs: 20_000 }));
    expect(error.message).toContain('maxDepth');
  });

  test('over SSE, a reply nested too deep is skipped as unreadable and reported as a warning', async () => {
    const t = await sseTarget('deep-nesting');
    const warnings: string[] = [];
    const client = new ToolClient(new SseClientTransport(t.url), {
      timeoutMs: 1500,
      onWarning: (w) => warnings.push(w),
    });
    const error = await connectError(client);
    expect(error.name).toBe('ToolTimeoutError');
    expect(warnings.join('\n')).toContain('maxDepth');
  });
});

describe('reference tool client: bounded in time on a server that stalls', () => {
  test('over SSE, a stream request never answered fails connect at its timeout', async () => {
    const url = await stalling(() => {});
    const error = await connectError(
      new ToolClient(new SseClientTransport(`${url}/sse`), { timeoutMs: 300 }),
    );
    expect(error.message).toMatch(/did not start within 300 ms/);
  });

  test('over Streamable HTTP, a POST never answered fails initialize at its timeout', async () => {
    const url = await stalling(() => {});
    const error = await connectError(
      new ToolClient(new StreamableHttpClientTransport(`${url}/mcp`), { timeoutMs: 300 }),
    );
    expect(error.name).toBe('ToolTimeoutError');
  });

  test('over Streamable HTTP, a JSON answer whose body never ends fails initialize at its timeout', async () => {
    const url = await stalling((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"jsonrpc":"2.0","id":1,');
    });
    const error = await connectError(
      new ToolClient(new StreamableHttpClientTransport(`${url}/mcp`), { timeoutMs: 300 }),
    );
    expect(error.name).toBe('ToolTimeoutError');
  });
});
