import { describe, expect, test } from 'vitest';
import {
  referenceToolServerCommand,
  type ToolServerTarget,
  toolServerSuiteEntry,
} from '../../../src/suites/tool-server/index.js';
import { notPassed, runAgainst, sseTarget, statusById, stdioTarget } from './helpers.js';

// dist/ is built once by the global setup (test/global-setup.ts) before any test runs.
describe('the reference tool server (wirecheck serve tools)', () => {
  test('passes every quick check over stdio', async () => {
    const result = await runAgainst(stdioTarget(referenceToolServerCommand('stdio')));
    expect(notPassed(result)).toEqual([]);
    expect(statusById(result)['tool-server.tools.diagnostic']).toBe('pass');
    expect(statusById(result)['tool-server.stdio.stdout-purity']).toBe('pass');
  }, 120_000);

  test('passes every quick check over SSE', async () => {
    const result = await runAgainst(await sseTarget((port) => referenceToolServerCommand('sse', port)));
    expect(notPassed(result)).toEqual([]);
    expect(statusById(result)['tool-server.sse.session-model']).toBe('pass');
    expect(statusById(result)['tool-server.sse.no-session-400']).toBe('pass');
    // Its slow and diagnostic tools show the call in flight on a closed stream aborted: judged, not skipped.
    expect(statusById(result)['tool-server.sse.closed-session']).toBe('pass');
    expect(statusById(result)['tool-server.sse.closed-session-refused']).toBe('pass');
  }, 120_000);

  test('as `wirecheck all` starts it (a keep-alive every 2 s), it passes the keep-alive check', async () => {
    const { target, close } = await toolServerSuiteEntry.reference!();
    try {
      expect(JSON.stringify(target)).toContain('--keep-alive-ms 2000');
      const result = await runAgainst(target as ToolServerTarget, {
        only: ['tool-server.sse.keep-alive'],
      });
      expect(statusById(result)).toEqual({ 'tool-server.sse.keep-alive': 'pass' });
    } finally {
      await close();
    }
  }, 60_000);
});
