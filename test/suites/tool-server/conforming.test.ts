import { describe, expect, test } from 'vitest';
import { notPassed, runAgainst, statusById, testServer } from './helpers.js';

// The conforming test server (servers/conforming.mjs) follows every rule the suite checks:
// any warning or failure here is a false failure of the suite.
describe('a conforming tool server', () => {
  test('passes every quick check over stdio (SSE-only checks skip)', async () => {
    const result = await runAgainst(await testServer('conforming', 'stdio'));
    expect(notPassed(result)).toEqual([]);
    const status = statusById(result);
    expect(status['tool-server.stdio.stdout-purity']).toBe('pass');
    expect(status['tool-server.sse.endpoint-first']).toBe('skip');
    expect(status['tool-server.tools.diagnostic']).toBe('pass');
    expect(result.summary.passed).toBeGreaterThanOrEqual(18);
  }, 120_000);

  test('passes every quick check over SSE (the stdio-only check skips)', async () => {
    const result = await runAgainst(await testServer('conforming', 'sse'));
    expect(notPassed(result)).toEqual([]);
    const status = statusById(result);
    expect(status['tool-server.stdio.stdout-purity']).toBe('skip');
    expect(status['tool-server.sse.session-model']).toBe('pass');
    expect(status['tool-server.sse.no-session-400']).toBe('pass');
    expect(result.summary.passed).toBeGreaterThanOrEqual(30);
  }, 180_000);
});
