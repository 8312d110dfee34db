import { describe, expect, test } from 'vitest';
import type { ToolServerTarget } from '../../../src/suites/tool-server/index.js';
import { httpTarget, notPassed, runAgainst, testServer } from './helpers.js';

// A server that bounds how many sessions it holds and refuses one more with 503 (wirecheck's
// own Streamable HTTP server does) has no routing fault: the session models and the concurrent
// routing check stop opening at the refusal and judge the sessions they have.

const verdict = async (target: ToolServerTarget, id: string) => {
  const result = await runAgainst(target, { only: [id] });
  return result.checks.find((c) => c.id === id)!;
};

describe('checks that open many sessions, against a server that bounds them (503 past the cap)', () => {
  test('SSE: the model runs within the cap and passes', async () => {
    const check = await verdict(await testServer('max-sessions', 'sse'), 'tool-server.sse.session-model');
    expect(check.status, check.message).toBe('pass');
  }, 120_000);

  test('Streamable HTTP: the model runs within the cap and passes', async () => {
    const check = await verdict(
      await httpTarget('streamable-max-sessions'),
      'tool-server.http.session-model',
    );
    expect(check.status, check.message).toBe('pass');
  }, 120_000);

  test('SSE: concurrent routing over the sessions the cap leaves passes (it asks for 8)', async () => {
    const check = await verdict(
      await testServer('max-sessions', 'sse'),
      'tool-server.sse.concurrent-routing',
    );
    expect(check.status, check.message).toBe('pass');
  }, 120_000);

  test('SSE: concurrent routing with room for one session only is not exercised, saying why', async () => {
    const check = await verdict(
      await testServer('max-sessions-3', 'sse'),
      'tool-server.sse.concurrent-routing',
    );
    expect(check).toMatchObject({ status: 'skip', skipKind: 'not-exercised' });
    expect(check.message).toMatch(/refused new sessions for capacity \(GET .* was answered HTTP 503/);
  }, 120_000);

  test("SSE with room for one session beside the suite's own: no check fails or warns; those that need more are not exercised", async () => {
    const result = await runAgainst(await testServer('max-sessions-3', 'sse'), { only: ['tool-server.'] });
    expect(notPassed(result)).toEqual([]);
    const refused = result.checks.filter((c) =>
      /the server takes no more sessions now/.test(c.message ?? ''),
    );
    expect(refused.length).toBeGreaterThan(0);
    for (const c of refused) expect(c).toMatchObject({ status: 'skip', skipKind: 'not-exercised' });
  }, 120_000);

  test('SSE with room for one session of the model only: not exercised, saying why', async () => {
    const check = await verdict(await testServer('max-sessions-3', 'sse'), 'tool-server.sse.session-model');
    expect(check).toMatchObject({ status: 'skip', skipKind: 'not-exercised' });
    expect(check.message).toMatch(/refused new sessions for capacity \(GET .* was answered HTTP 503/);
    expect(check.message).toMatch(/routing needs 2 sessions at once/);
  }, 120_000);
});
