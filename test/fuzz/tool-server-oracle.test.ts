import { describe, expect, test } from 'vitest';
import {
  accepts,
  allowsNone,
  type Expectation,
  expectForBytes,
  expectForPost,
  expectForText,
  expectForValue,
  isJsonMediaType,
  matchReplies,
} from '../../src/fuzz/oracles/jsonrpc.js';

const stdio = { blank: 'optional' } as const;
const sse = { blank: 'parse error' } as const;
const err = (id: unknown, code: number) => ({ jsonrpc: '2.0', id, error: { code, message: 'm' } });
const ok = (id: unknown, result: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id, result });
const text = (t: string, isError?: boolean) => ({
  content: [{ type: 'text', text: t }],
  ...(isError === undefined ? {} : { isError }),
});
const req = (id: unknown, method: string, params?: unknown) =>
  params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
const call = (id: unknown, name: unknown, args?: unknown) =>
  req(id, 'tools/call', args === undefined ? { name } : { name, arguments: args });

/** The expectation takes exactly the listed answers among the candidates. */
function takes(e: Expectation, reply: unknown): boolean {
  return reply === undefined ? allowsNone(e) : accepts(e, reply);
}

describe('tool server oracle: text and bytes', () => {
  test('text that is not JSON is answered -32700 with id null', () => {
    for (const t of ['{', '{"jsonrpc":"2.0","id":1,"method":"ping"}x', "{'a':1}", 'NaN', '\u0000']) {
      const e = expectForText(t, stdio);
      expect(takes(e, err(null, -32700))).toBe(true);
      expect(takes(e, undefined)).toBe(false);
      expect(takes(e, err(1, -32700))).toBe(false);
    }
  });

  test('a blank stdio line may be skipped or refused; a blank POST body is not JSON', () => {
    for (const t of ['', '  ', '\t\r', '\u00a0']) {
      expect(takes(expectForText(t, stdio), undefined)).toBe(true);
      expect(takes(expectForText(t, stdio), err(null, -32700))).toBe(true);
      expect(takes(expectForText(t, sse), undefined)).toBe(false);
      expect(takes(expectForText(t, sse), err(null, -32700))).toBe(true);
    }
  });

  test('bytes that are not UTF-8 may be refused, or read with U+FFFD', () => {
    const bytes = Buffer.concat([
      Buffer.from('{"jsonrpc":"2.0","id":"a\xff'.slice(0, -1)),
      Buffer.from([0xff]),
      Buffer.from('","method":"ping"}'),
    ]);
    const e = expectForBytes(bytes, stdio);
    expect(takes(e, err(null, -32700))).toBe(true);
    expect(takes(e, ok('a\ufffd'))).toBe(true);
    expect(takes(e, ok('a'))).toBe(false);
  });

  test('a leading byte order mark may be refused or ignored (RFC 8259 8.1)', () => {
    const e = expectForText('\ufeff{"jsonrpc":"2.0","id":2,"method":"ping"}', sse);
    expect(takes(e, ok(2))).toBe(true);
    expect(takes(e, err(null, -32700))).toBe(true);
    expect(takes(e, undefined)).toBe(false);
  });

  test('deep nesting may hit a parser limit, or be answered as usual', () => {
    const e = expectForText(`${'['.repeat(1000)}${']'.repeat(1000)}`, sse);
    expect(takes(e, err(null, -32700))).toBe(true);
    expect(takes(e, [err(null, -32600)])).toBe(true);
  });
});

describe('tool server oracle: envelopes', () => {
  test('a value that is not an object is -32600 with id null', () => {
    for (const v of [null, 1, 'ping', true]) expect(takes(expectForValue(v), err(null, -32600))).toBe(true);
  });

  test('wrong jsonrpc, a method that is not a string, params not an object: -32600 echoing a readable id', () => {
    expect(takes(expectForValue({ jsonrpc: '1.0', id: 5, method: 'ping' }), err(5, -32600))).toBe(true);
    expect(takes(expectForValue({ id: 5, method: 'ping' }), err(5, -32600))).toBe(true);
    expect(takes(expectForValue({ jsonrpc: '2.0', id: 'x', method: 7 }), err('x', -32600))).toBe(true);
    expect(takes(expectForValue(req(6, 'ping', [1])), err(6, -32600))).toBe(true);
    expect(takes(expectForValue(req(6, 'ping', [1])), err(null, -32600))).toBe(false);
    expect(takes(expectForValue({ jsonrpc: '2.0', method: 'x', params: 'p' }), err(null, -32600))).toBe(true);
  });

  test('an id that is null, a boolean, an object or an array is -32600 with id null', () => {
    for (const id of [null, true, {}, [1]]) {
      expect(takes(expectForValue(req(id, 'ping')), err(null, -32600))).toBe(true);
      expect(takes(expectForValue(req(id, 'ping')), ok(null))).toBe(false);
    }
  });

  test('an id beyond the double range is never answered with a result (it cannot be echoed)', () => {
    const e = expectForText('{"jsonrpc":"2.0","id":1e400,"method":"ping"}', stdio);
    expect(takes(e, ok(null))).toBe(false);
    expect(takes(e, err(null, -32600))).toBe(true);
    const unknown = expectForText('{"jsonrpc":"2.0","id":-1e400,"method":"nope"}', stdio);
    expect(takes(unknown, err(null, -32601))).toBe(true);
  });

  test('ids are echoed as read: integers beyond 2^53 as the double they parse to, floats, empty strings', () => {
    expect(
      takes(
        expectForText('{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}', stdio),
        ok(9007199254740992),
      ),
    ).toBe(true);
    expect(takes(expectForValue(req(1.5, 'ping')), ok(1.5))).toBe(true);
    expect(takes(expectForValue(req('', 'ping')), ok(''))).toBe(true);
    expect(takes(expectForValue(req('1', 'ping')), ok(1))).toBe(false);
  });

  test('an unknown method is -32601 with the id; known ones answer', () => {
    expect(takes(expectForValue(req(3, 'tools/unknown')), err(3, -32601))).toBe(true);
    expect(takes(expectForValue(req(3, 'notifications/initialized')), err(3, -32601))).toBe(true);
    expect(takes(expectForValue(req(3, 'ping')), ok(3))).toBe(true);
    expect(takes(expectForValue(req(3, 'ping')), ok(3, { extra: 1 }))).toBe(false);
    const init = { protocolVersion: '2025-01-01', capabilities: {}, clientInfo: { name: 'c', version: '1' } };
    const answer = (protocolVersion: string) =>
      ok(4, { protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 's', version: '1' } });
    // MCP version negotiation: an unknown version gets the server's latest, a known one itself.
    expect(takes(expectForValue(req(4, 'initialize', init)), answer('2025-11-25'))).toBe(true);
    expect(takes(expectForValue(req(4, 'initialize', init)), answer('2024-11-05'))).toBe(false);
    const known = { ...init, protocolVersion: '2025-06-18' };
    expect(takes(expectForValue(req(4, 'initialize', known)), answer('2025-06-18'))).toBe(true);
    expect(takes(expectForValue(req(4, 'initialize', known)), answer('2025-11-25'))).toBe(false);
    expect(takes(expectForValue(req(4, 'initialize', {})), err(4, -32602))).toBe(true);
  });

  test('notifications and responses sent to the server get no reply; malformed responses may get -32600', () => {
    expect(takes(expectForValue({ jsonrpc: '2.0', method: 'notifications/initialized' }), undefined)).toBe(
      true,
    );
    expect(takes(expectForValue({ jsonrpc: '2.0', method: 'ping' }), undefined)).toBe(true);
    expect(takes(expectForValue(ok(1)), undefined)).toBe(true);
    expect(takes(expectForValue(err(null, -1)), undefined)).toBe(true);
    expect(takes(expectForValue(ok(1)), err(1, -32600))).toBe(false);
    const malformed = expectForValue({ jsonrpc: '2.0', id: 1, result: 5 });
    expect(takes(malformed, undefined)).toBe(true);
    expect(takes(malformed, err(1, -32600))).toBe(true);
  });
});

describe('tool server oracle: tools/call', () => {
  test('missing params, a name that is not a string, arguments that are not an object, an unknown tool, bad arguments: -32602', () => {
    for (const v of [
      req(1, 'tools/call'),
      call(1, 5, {}),
      call(1, 'echo', []),
      call(1, 'echo', null),
      call(1, 'nope', {}),
      call(1, 'echo', {}),
      call(1, 'echo', { text: 1 }),
      call(1, 'add', { a: 1 }),
      call(1, 'slow', { ms: 1.5 }),
    ]) {
      expect(takes(expectForValue(v), err(1, -32602))).toBe(true);
    }
  });

  test('absent arguments count as empty; results carry what each tool does', () => {
    expect(takes(expectForValue(call(1, 'diagnostic')), ok(1, text('status: ok\npid: 1')))).toBe(true);
    expect(takes(expectForValue(call(1, 'fail')), ok(1, text('this tool always fails', true)))).toBe(true);
    expect(takes(expectForValue(call(1, 'echo', { text: 'hi' })), ok(1, text('hi')))).toBe(true);
    expect(takes(expectForValue(call(1, 'echo', { text: 'hi' })), ok(1, text('ho')))).toBe(false);
    expect(takes(expectForValue(call(1, 'add', { a: 1, b: 2.5 })), ok(1, text('3.5')))).toBe(true);
    expect(takes(expectForValue(call(1, 'slow', { ms: -3 })), ok(1, text('waited 0 ms')))).toBe(true);
  });
});

describe('tool server oracle: batches', () => {
  test('an empty batch is one -32600; a batch is one array; nested arrays are -32600 entries', () => {
    expect(takes(expectForValue([]), err(null, -32600))).toBe(true);
    expect(takes(expectForValue([]), [])).toBe(false);
    const e = expectForValue([req(1, 'ping'), [], { jsonrpc: '2.0', method: 'n' }]);
    expect(takes(e, [ok(1), err(null, -32600)])).toBe(true);
    expect(takes(e, [err(null, -32600), ok(1)])).toBe(true);
    expect(takes(e, [ok(1)])).toBe(false);
    expect(takes(e, ok(1))).toBe(false);
  });

  test('a batch of notifications gets no reply at all', () => {
    const e = expectForValue([{ jsonrpc: '2.0', method: 'a' }, ok(1)]);
    expect(takes(e, undefined)).toBe(true);
    expect(takes(e, [])).toBe(false);
  });

  test('a call whose id is in flight in the batch is -32600; a cancelled call leaves no entry', () => {
    const slow = call('s', 'slow', { ms: 1 });
    expect(
      takes(expectForValue([slow, call('s', 'echo', { text: 'x' })]), [
        ok('s', text('waited 1 ms')),
        err('s', -32600),
      ]),
    ).toBe(true);
    const cancel = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 's' } };
    expect(takes(expectForValue([call('s', 'slow', {}), cancel, req(2, 'ping')]), [ok(2)])).toBe(true);
    // Once cancelled, the id is free again.
    expect(takes(expectForValue([call('s', 'slow', {}), cancel, slow]), [ok('s', text('waited 1 ms'))])).toBe(
      true,
    );
  });
});

describe('tool server oracle: matching replies', () => {
  const expectations = [
    expectForValue(req(1, 'ping')),
    expectForValue(req(2, 'nope')),
    expectForText('x', stdio),
  ];

  test('replies to separate messages may come in any order', () => {
    expect(matchReplies(expectations, [err(null, -32700), err(2, -32601), ok(1)]).ok).toBe(true);
  });

  test('a missing reply and a reply nothing asked for are both named', () => {
    const m = matchReplies(expectations, [ok(1), err(null, -32700), ok(9)]);
    expect(m).toEqual({ ok: false, unexpected: [2], missing: [1] });
  });

  test('an optional reply never takes the place of a needed one', () => {
    const blank = expectForText('', stdio);
    const m = matchReplies([blank, expectForText('x', stdio)], [err(null, -32700)]);
    expect(m.ok).toBe(true);
    expect(matchReplies([blank, expectForText('x', stdio)], [err(null, -32700), err(null, -32700)]).ok).toBe(
      true,
    );
    expect(matchReplies([blank, expectForText('x', stdio)], []).ok).toBe(false);
  });
});

describe('tool server oracle: POSTs on the SSE transport', () => {
  const base = {
    path: 'message path',
    session: 'open',
    contentType: 'application/json',
    bodyBytes: 10,
    bodyLimit: 100,
  } as const;

  test('an open session and a JSON body: 202', () => {
    expect(expectForPost(base).statuses).toEqual([202]);
  });

  test('no, unknown or closed session: 400; not JSON: 400; over the limit: 413; another path: 404', () => {
    for (const session of ['none', 'unknown', 'closed'] as const)
      expect(expectForPost({ ...base, session }).statuses).toEqual([400]);
    expect(expectForPost({ ...base, contentType: 'text/plain' }).statuses).toEqual([400]);
    expect(expectForPost({ ...base, contentType: undefined }).statuses).toEqual([400]);
    expect(expectForPost({ ...base, bodyBytes: 101 }).statuses).toEqual([413]);
    expect(expectForPost({ ...base, bodyBytes: 100 }).statuses).toEqual([202]);
    expect(expectForPost({ ...base, path: 'other' }).statuses).toEqual([404]);
  });

  test('when several refusals apply, any of them is right', () => {
    expect(expectForPost({ ...base, session: 'none', bodyBytes: 101 }).statuses).toEqual([413, 400]);
  });

  test('JSON media types: application/json and application/*+json, any case, with parameters', () => {
    for (const t of ['application/json', 'Application/JSON; charset=utf-8', 'application/vnd.api+json'])
      expect(isJsonMediaType(t)).toBe(true);
    for (const t of [undefined, '', 'text/json', 'application/jsonx', 'application/+json', 'text/plain'])
      expect(isJsonMediaType(t)).toBe(false);
  });
});
