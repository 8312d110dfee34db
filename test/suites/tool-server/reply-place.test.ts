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

describe('a check left waiting on the stream says where the reply went instead', () => {
  test.each([
    ['reply-in-body-after-initialize', 'in the POST response body'],
    ['response-event-after-initialize', 'as event "response"'],
  ])(
    '%s',
    async (server, where) => {
      const only = [
        'tool-server.ping.answered',
        'tool-server.jsonrpc.unknown-method',
        'tool-server.tools.list-shape',
      ];
      const result = await runAgainst(await testServer(server, 'sse'), { only }, quickSuite);
      const ping = result.checks.find((c) => c.id === 'tool-server.ping.answered')!;
      expect(ping.status).toBe('fail');
      expect(ping.message).toContain(`the reply came ${where} instead`);
      expect(ping.message).toContain('tool-server.sse.reply-on-stream');
      // The third request in a row left unanswered on the stream stops the run, naming the cause.
      const gone = result.checks.find((c) => c.targetGone === true);
      expect(gone?.message).toMatch(/left 3 requests in a row unanswered/);
      expect(gone?.message).toContain(`its replies came ${where}, not on the stream`);
    },
    60_000,
  );
});
