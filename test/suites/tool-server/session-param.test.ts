import { describe, expect, test } from 'vitest';
import { sessionIdOf, sessionParamOf } from '../../../src/protocol/mcp/index.js';
import { withSession } from '../../../src/suites/tool-server/sse-channel.js';
import { notPassed, runAgainst, statusById, testServer } from './helpers.js';

// The spec names the SSE endpoint's session parameter sessionId; the Python SDK and FastMCP
// announce `/messages/?session_id=<hex>`. A client uses the announced URL as is, so only
// sse.endpoint-first judges the name: the routing checks follow the parameter the server named.

describe('the session parameter of an SSE endpoint', () => {
  test('sessionId, or else a parameter spelled so in another style; none for a session in the path', () => {
    const snake = new URL('http://127.0.0.1/messages/?session_id=abc&x=1');
    expect(sessionParamOf(snake)).toBe('session_id');
    expect(sessionIdOf(snake)).toBe('abc');
    expect(sessionParamOf(new URL('http://h/m?session_id=a&sessionId=b'))).toBe('sessionId');
    expect(sessionIdOf(new URL('http://h/m?Session-Id=c'))).toBe('c');
    expect(sessionParamOf(new URL('http://h/messages/abc'))).toBeUndefined();
    expect(sessionParamOf(new URL('http://h/m?session=abc'))).toBeUndefined();
  });

  test('withSession replaces or removes the parameter the endpoint named, and adds sessionId to one without', () => {
    const snake = new URL('http://127.0.0.1/messages/?session_id=abc&x=1');
    expect(withSession(snake, 'other').search).toBe('?session_id=other&x=1');
    expect(withSession(snake, undefined).search).toBe('?x=1');
    expect(withSession(new URL('http://h/messages'), 'n').search).toBe('?sessionId=n');
  });
});

describe('an SSE server whose endpoint names its session otherwise', () => {
  test('session_id: only endpoint-first fails, naming the parameter; the routing checks pass', async () => {
    const result = await runAgainst(await testServer('session-id-snake', 'sse'), {
      only: ['tool-server.sse.'],
    });
    expect(notPassed(result)).toEqual([
      'tool-server.sse.endpoint-first: fail: the endpoint carries its session in the query parameter "session_id", where the spec names it sessionId',
    ]);
    const status = statusById(result);
    for (const id of [
      'tool-server.sse.session-header',
      'tool-server.sse.unknown-session-refused',
      'tool-server.sse.no-cross-session-reply',
      'tool-server.sse.reconnect-new-session',
      'tool-server.sse.reconnect-fresh-id',
    ])
      expect(status[id], id).toBe('pass');
  }, 120_000);

  test('session_id, and a POST for no known session routed to a session: the routing checks still judge it', async () => {
    const result = await runAgainst(await testServer('session-id-snake-route-unknown', 'sse'), {
      only: ['tool-server.sse.'],
    });
    const status = statusById(result);
    // The refusal is the spec's reference server's (a should); the misrouted reply fails.
    expect(status['tool-server.sse.unknown-session-refused']).toBe('warn');
    expect(status['tool-server.sse.no-cross-session-reply']).toBe('fail');
  }, 120_000);

  test('the session in the path: the checks that need a session query parameter are not exercised, saying why', async () => {
    const result = await runAgainst(await testServer('session-in-path', 'sse'), {
      only: ['tool-server.sse.'],
    });
    const status = statusById(result);
    expect(status['tool-server.sse.endpoint-first']).toBe('fail');
    // A new stream that answers its ping meets the reconnect rule whatever carries the session id.
    expect(status['tool-server.sse.reconnect-new-session']).toBe('pass');
    for (const id of [
      'tool-server.sse.session-header',
      'tool-server.sse.unknown-session-refused',
      'tool-server.sse.reconnect-fresh-id',
    ]) {
      const check = result.checks.find((c) => c.id === id);
      expect(check?.status, id).toBe('skip');
      expect(check?.skipKind, id).toBe('not-exercised');
      expect(check?.message, id).toContain('carries no session id in a query parameter');
    }
  }, 120_000);
});
