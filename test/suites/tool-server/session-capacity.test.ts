import { describe, expect, test } from 'vitest';
import type { ToolServerTarget } from '../../../src/suites/tool-server/index.js';
import { httpTarget, notPassed, runAgainst, testServer } from './helpers.js';

// A server that bounds how many sessions it holds and refuses one more with 503 (wirecheck's
// own Streamable HTTP server does) has no routing fault: the session models and the concurrent
// routing check stop opening at the refusal and judge the sessions they have.

/** The checks of a run that name a session refused for capacity, in run order; each must be not exercised. */
const refusedForCapacity = (result: Awaited<ReturnType<typeof runAgainst>>) => {
  const refused = result.checks.filter((c) => /the server takes no more sessions now/.test(c.message ?? ''));
  for (const c of refused) expect(c, c.id).toMatchObject({ status: 'skip', skipKind: 'not-exercised' });
  return refused;
};

/** Asserts that each of the checks `ids` (without their "tool-server." prefix) passed. */
const expectPassed = (result: Awaited<ReturnType<typeof runAgainst>>, ids: readonly string[]) => {
  for (const id of ids) {
    const check = result.checks.find((c) => c.id === `tool-server.${id}`);
    expect(check?.status, `${id}: ${check?.message}`).toBe('pass');
  }
};

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

  test("SSE with room for one session beside the suite's main and idle streams: the idle stream lets its session go, and concurrent routing is judged on two and passes", async () => {
    const check = await verdict(
      await testServer('max-sessions-3', 'sse'),
      'tool-server.sse.concurrent-routing',
    );
    expect(check.status, check.message).toBe('pass');
  }, 120_000);

  test('SSE: the idle stream let go for a capped server, keep-alives are judged on a new one: beats pass, silence fails', async () => {
    const only = ['tool-server.sse.concurrent-routing', 'tool-server.sse.keep-alive'];
    const beating = await runAgainst(await testServer('max-sessions-3', 'sse'), { only });
    expect(beating.checks.map((c) => [c.id, c.status, c.message])).toEqual(
      only.map((id) => [id, 'pass', '']),
    );
    const silent = await runAgainst(await testServer('max-sessions-3-no-keep-alive', 'sse'), { only });
    const [routing, keepAlive] = only.map((id) => silent.checks.find((c) => c.id === id)!);
    expect(routing?.status, routing?.message).toBe('pass');
    expect(keepAlive).toMatchObject({ status: 'fail', level: 'must' });
    expect(keepAlive?.message).toMatch(/the idle stream carried no keep-alive for \d+ ms/);
  }, 120_000);

  test('SSE: concurrent routing with room for one session only, even once the idle stream has let its go, is not exercised, saying why', async () => {
    const check = await verdict(
      await testServer('max-sessions-2', 'sse'),
      'tool-server.sse.concurrent-routing',
    );
    expect(check).toMatchObject({ status: 'skip', skipKind: 'not-exercised' });
    expect(check.message).toMatch(/refused new sessions for capacity \(GET .* was answered HTTP 503/);
  }, 120_000);

  test("SSE with no room beside the suite's main and idle streams: no check fails or warns; the idle stream lets its session go, so the checks that need one session are judged, and keep-alives on a new stream at the end", async () => {
    const result = await runAgainst(await testServer('max-sessions-2', 'sse'), { only: ['tool-server.'] });
    expect(notPassed(result)).toEqual([]);
    const refused = refusedForCapacity(result);
    expect(refused.length).toBeGreaterThan(0);
    expectPassed(result, [
      'sse.stream-response',
      'sse.reconnect-new-session',
      'malformed.survives',
      'sse.keep-alive',
    ]);
  }, 120_000);

  test("SSE with room for one session beside the suite's main and idle streams: every check is judged and passes; the observers make room for the closed session, and a session refused for capacity gets the room of those kept for checks that all ended", async () => {
    const result = await runAgainst(await testServer('max-sessions-3', 'sse'), { only: ['tool-server.'] });
    expect(notPassed(result)).toEqual([]);
    expect(refusedForCapacity(result)).toEqual([]);
    expectPassed(result, [
      'sse.unknown-session-refused',
      'sse.closed-session-refused',
      'sse.no-cross-session-reply',
      'sse.concurrent-routing',
      'sse.session-model',
      'sse.keep-alive',
    ]);
  }, 120_000);

  test("Streamable HTTP with room for two sessions beside the suite's main one: every check is judged and passes: a session refused for capacity gets the room of those kept for checks that all ended", async () => {
    const result = await runAgainst(await httpTarget('streamable-max-sessions-3'), {
      only: ['tool-server.'],
    });
    expect(notPassed(result)).toEqual([]);
    expect(refusedForCapacity(result)).toEqual([]);
    expectPassed(result, [
      'http.no-cross-session-reply',
      'http.session-model',
      'malformed.survives',
      'tools.generated-arguments',
    ]);
  }, 120_000);

  test("Streamable HTTP, 2025-06-18, with room for two sessions beside the suite's main one and MCP-Protocol-Version required on every request: the sessions the Origin check opens are ended, and every check passes", async () => {
    // The DELETE of a session opened by the Origin check's own initialize carries the version
    // header too: refused for lack of it, the session stayed, and the room of the later checks with it.
    const result = await runAgainst(
      await httpTarget('streamable-0618-version-required-max-sessions-3', '2025-06-18'),
      { only: ['tool-server.'] },
    );
    expect(notPassed(result)).toEqual([]);
    expect(refusedForCapacity(result)).toEqual([]);
    expectPassed(result, ['http.origin-refused', 'http.no-cross-session-reply', 'http.session-model']);
  }, 120_000);

  test('Streamable HTTP: a refusal names the sessions the server holds, not those still waiting for their initialize answer', async () => {
    // Room for one session beside main: the model opens its sessions at once, and has one.
    const result = await runAgainst(await httpTarget('streamable-max-sessions-2'), {
      only: ['tool-server.http.session-model'],
    });
    const [model] = refusedForCapacity(result);
    expect(model?.id).toBe('tool-server.http.session-model');
    expect(model?.message).toMatch(/the suite holds 2 sessions: main, S1;/);
  }, 120_000);

  test('--only some of the checks that share sessions: once those selected ended, a session refused for capacity gets their room', async () => {
    // Those left out never run, so their sessions are not kept for them: on a cap of 3 the
    // checks that need two sessions at once are judged.
    const runs = [
      [
        await httpTarget('streamable-max-sessions-3'),
        ['http.session-id', 'http.no-cross-session-reply', 'http.session-model'],
      ],
      [
        await testServer('max-sessions-3', 'sse'),
        ['sse.unknown-session-refused', 'sse.concurrent-routing', 'sse.session-model'],
      ],
    ] as const;
    for (const [target, ids] of runs) {
      const result = await runAgainst(target, { only: ids.map((id) => `tool-server.${id}`) });
      expect(refusedForCapacity(result)).toEqual([]);
      expectPassed(result, ids);
    }
  }, 120_000);

  test('SSE with room for one session of the model only: not exercised, saying why', async () => {
    const check = await verdict(await testServer('max-sessions-2', 'sse'), 'tool-server.sse.session-model');
    expect(check).toMatchObject({ status: 'skip', skipKind: 'not-exercised' });
    expect(check.message).toMatch(/refused new sessions for capacity \(GET .* was answered HTTP 503/);
    expect(check.message).toMatch(/routing needs 2 sessions at once/);
  }, 120_000);
});
