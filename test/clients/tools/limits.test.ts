import { afterEach, describe, expect, test } from 'vitest';
import { probeToolServer, ToolClient } from '../../../src/clients/tools/index.js';
import { ChildProcessTransport, SseClientTransport } from '../../../src/transports/index.js';
import { type RunningTarget, startSseTarget, targetCommand } from '../../hostile/targets.js';

const running: RunningTarget[] = [];
const clients: ToolClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  for (const t of running.splice(0)) await t.stop();
});

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
