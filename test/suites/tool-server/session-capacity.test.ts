import { describe, expect, test } from 'vitest';
import type { ToolServerTarget } from '../../../src/suites/tool-server/index.js';
import { freePort, runAgainst, serverScript, testServer } from './helpers.js';

// A server that bounds how many sessions it holds and refuses one more with 503 (wirecheck's
// own Streamable HTTP server does) has no routing fault: the session models stop opening at
// the refusal and judge the sessions they have.

async function streamable(name: string): Promise<ToolServerTarget> {
  const port = await freePort();
  return {
    kind: 'http',
    url: `http://127.0.0.1:${port}/mcp`,
    start: `${serverScript(name)} --port ${port}`,
    callTools: 'all',
  };
}

const verdict = async (target: ToolServerTarget, id: string) => {
  const result = await runAgainst(target, { only: [id] });
  return result.checks.find((c) => c.id === id)!;
};

describe('session models against a server that bounds its sessions (503 past the cap)', () => {
  test('SSE: the model runs within the cap and passes', async () => {
    const check = await verdict(await testServer('max-sessions', 'sse'), 'tool-server.sse.session-model');
    expect(check.status, check.message).toBe('pass');
  }, 120_000);

  test('Streamable HTTP: the model runs within the cap and passes', async () => {
    const check = await verdict(
      await streamable('streamable-max-sessions'),
      'tool-server.http.session-model',
    );
    expect(check.status, check.message).toBe('pass');
  }, 120_000);

  test('SSE with room for one session of the model only: not exercised, saying why', async () => {
    const check = await verdict(await testServer('max-sessions-3', 'sse'), 'tool-server.sse.session-model');
    expect(check).toMatchObject({ status: 'skip', skipKind: 'not-exercised' });
    expect(check.message).toMatch(/refused new sessions for capacity \(GET .* was answered HTTP 503/);
    expect(check.message).toMatch(/routing needs 2 sessions at once/);
  }, 120_000);
});
