import { describe, expect, test } from 'vitest';
import { isReplyTo } from '../../../src/suites/tool-server/reply-place.js';
import { quickSuite, runAgainst, testServer } from './helpers.js';

// sse.reply-on-stream judges where the replies to initialize and to a later request went: a
// server may answer initialize on the stream (so it passes the preflight) and the rest elsewhere.

const CHECK = 'tool-server.sse.reply-on-stream';

describe('isReplyTo', () => {
  test('a result or an error with the id is the reply; the request itself, or another id, is not', () => {
    expect(isReplyTo('{"jsonrpc":"2.0","id":7,"result":{}}', 7)).toBe(true);
    expect(isReplyTo('{"jsonrpc":"2.0", "id": 7, "error":{"code":-32601,"message":"no"}}', 7)).toBe(true);
    expect(isReplyTo('{"jsonrpc":"2.0","id":7,"method":"ping"}', 7)).toBe(false);
    expect(isReplyTo('{"jsonrpc":"2.0","id":8,"result":{}}', 7)).toBe(false);
    expect(isReplyTo('Accepted', 7)).toBe(false);
  });
});

describe(`${CHECK} names where a later reply went`, () => {
  test.each([
    ['reply-in-body-after-initialize', /the reply to a ping after initialize came in the POST response body/],
    ['response-event-after-initialize', /the reply to a ping after initialize came as event "response"/],
  ])(
    '%s',
    async (server, message) => {
      const result = await runAgainst(await testServer(server, 'sse'), { only: [CHECK] }, quickSuite);
      const check = result.checks[0]!;
      expect(check.status).toBe('fail');
      expect(check.message).toMatch(message);
      expect(check.expected).toBe('event: message with the reply on the stream');
      expect(check.actual).toContain('"result":{}');
    },
    60_000,
  );
});
