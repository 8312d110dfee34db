import { describe, expect, test } from 'vitest';
import { TargetUnavailable } from '../../../src/harness/check.js';
import { httpTarget, quickSuite, runAgainst, statusById } from './helpers.js';

// A server that does not support the offered revision answers another one it supports (MCP
// lifecycle: "Otherwise, the server MUST respond with another protocol version it supports").
// The rules of the offered revision then do not bind the session.

describe('the revision the server answered, not the one offered', () => {
  test('a server that answers the 2025-03-26 offer with 2025-06-18 owes no batch: not exercised, naming the answer', async () => {
    const result = await runAgainst(
      await httpTarget('streamable-only-0618'),
      { only: ['tool-server.'] },
      quickSuite,
    );
    const batch = result.checks.find((c) => c.id === 'tool-server.jsonrpc.batch-answered');
    expect(batch).toMatchObject({ status: 'skip', skipKind: 'not-exercised' });
    expect(batch?.message).toContain('protocolVersion "2025-06-18"');
    expect(statusById(result)['tool-server.initialize.supported-version-echoed']).toBe('pass');
  }, 120_000);

  test('a 2025-06-18 server that answers 400 to a request without MCP-Protocol-Version (2025-03-26 assumed, which it does not speak) gets the header on every request, GET and DELETE too', async () => {
    const result = await runAgainst(
      await httpTarget('streamable-only-0618-version-required', '2025-06-18'),
      {},
      quickSuite,
    );
    const statuses = statusById(result);
    expect(Object.entries(statuses).filter(([, s]) => s === 'fail' || s === 'warn')).toEqual([]);
    expect(statuses['tool-server.http.get-stream']).toBe('pass');
    expect(statuses['tool-server.http.deleted-session-404']).toBe('pass');
    expect(statuses['tool-server.http.no-cross-session-reply']).toBe('pass');
  }, 180_000);

  test('--protocol naming a revision the server answers with another: the target cannot be tested as it (exit 2), saying which to name', async () => {
    const run = runAgainst(await httpTarget('streamable-only-0618', '2025-11-25'), {}, quickSuite);
    await expect(run).rejects.toThrow(TargetUnavailable);
    await expect(run).rejects.toThrow(
      /cannot be tested as 2025-11-25: asked for protocolVersion 2025-11-25 \(--protocol\), the server answered 2025-06-18: it does not speak 2025-11-25; test it with --protocol 2025-06-18/,
    );
  }, 120_000);
});
