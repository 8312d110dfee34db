import { describe, expect, test } from 'vitest';
import { replyInPostBody } from '../../../src/suites/tool-server/reply-place.js';
import { quickSuite, runAgainst, testServer } from './helpers.js';

// Over SSE only the stream's message events reach the session's peer: a server that answered
// a notification's POST with 200 and a JSON-RPC error in its body replied to a notification
// unseen, and passed jsonrpc.notification-no-reply.

const CHECK = 'tool-server.jsonrpc.notification-no-reply';

describe('replyInPostBody', () => {
  const ok = (body: string, status = 200) => ({ status, body, contentType: 'application/json' });
  test('a JSON-RPC result or error in a 2xx body is a reply, whatever its id, in a batch too', () => {
    expect(replyInPostBody(ok('{"jsonrpc":"2.0","id":null,"error":{"code":-32601,"message":"no"}}'))).toBe(
      true,
    );
    expect(replyInPostBody(ok('{"jsonrpc":"2.0","id":3,"result":{}}', 202))).toBe(true);
    expect(replyInPostBody(ok('[{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"no"}}]'))).toBe(
      true,
    );
  });
  test('Accepted, an empty or non-JSON-RPC body, an HTTP error, or no answer is no reply', () => {
    expect(replyInPostBody(ok('Accepted', 202))).toBe(false);
    expect(replyInPostBody(ok('', 202))).toBe(false);
    expect(replyInPostBody(ok('{}'))).toBe(false);
    expect(replyInPostBody(ok('{"error":"no active session"}'))).toBe(false);
    expect(replyInPostBody(ok('{"jsonrpc":"2.0","method":"ping","id":1}'))).toBe(false);
    expect(
      replyInPostBody(ok('{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"no"}}', 400)),
    ).toBe(false);
    expect(replyInPostBody({ status: undefined, body: '', contentType: undefined, problem: 'timeout' })).toBe(
      false,
    );
    expect(replyInPostBody(undefined)).toBe(false);
  });
});

describe(CHECK, () => {
  test('over SSE, a JSON-RPC error in the POST response body of a notification fails, saying where', async () => {
    const result = await runAgainst(
      await testServer('reply-to-notifications-in-body', 'sse'),
      { only: [CHECK] },
      quickSuite,
    );
    const check = result.checks.find((c) => c.id === CHECK);
    expect(check?.status, check?.message).toBe('fail');
    expect(check?.message).toMatch(
      /^2 reply\(ies\) to notifications: in the POST response body \(HTTP 200\)/,
    );
    expect(check?.actual).toContain('"code":-32601');
  }, 60_000);

  test('over SSE, the conforming server (202 Accepted) passes', async () => {
    const result = await runAgainst(await testServer('conforming', 'sse'), { only: [CHECK] }, quickSuite);
    const check = result.checks.find((c) => c.id === CHECK);
    expect(check?.status, check?.message).toBe('pass');
  }, 60_000);
});
