import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  build,
  createMockMessagesApp,
  type MockMessagesOptions,
  scriptScenario,
} from '../../../src/mocks/messages/index.js';
import { ErrorBody } from '../../../src/protocol/messages/index.js';
import { decodeChunks, KEY, messagesBody, SAMPLE, SAMPLE_SPLITS } from './helpers.js';

function appWith(opts: MockMessagesOptions = {}) {
  return createMockMessagesApp({
    scenario: scriptScenario(Array(20).fill({ kind: 'message', message: SAMPLE, splits: SAMPLE_SPLITS })),
    ...opts,
  });
}

/** POST /v1/messages with the key and a one-turn body (`messagesBody(text, extra)`). */
function postMessages(app: ReturnType<typeof appWith>['app'], text: string, extra?: Record<string, unknown>) {
  return app.inject({
    method: 'POST',
    url: '/v1/messages',
    headers: KEY,
    payload: messagesBody(text, extra),
  });
}

async function post(opts: MockMessagesOptions, headers: Record<string, string>, payload: string | object) {
  const { app, state } = appWith(opts);
  const res = await app.inject({ method: 'POST', url: '/v1/messages', headers, payload: payload as string });
  await app.close();
  return { res, entry: state.journal.entries()[0]! };
}

function expectErrorBody(
  res: { statusCode: number; body: string; headers: Record<string, unknown> },
  status: number,
  type: string,
) {
  expect(res.statusCode).toBe(status);
  const body = JSON.parse(res.body);
  expect(ErrorBody.safeParse(body).success).toBe(true);
  expect(body.type).toBe('error');
  expect(body.error.type).toBe(type);
  expect(body.request_id).toBe(res.headers['request-id']);
  expect(String(res.headers['request-id'])).toMatch(/^req_\w{20,}$/);
  return body.error.message as string;
}

describe('buffered replies', () => {
  test('a request without stream gets the scripted message as JSON', async () => {
    const { res, entry } = await post({}, KEY, messagesBody('hi'));
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(res.body)).toEqual(SAMPLE);
    expect(entry).toMatchObject({ status: 200, outcome: 'completed', stream: false, auth: 'x-api-key' });
  });

  test('stream: true is honoured whatever the Accept header says (the SDK sends application/json)', async () => {
    const { res } = await post(
      {},
      { ...KEY, accept: 'application/json' },
      messagesBody('hi', { stream: true }),
    );
    expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.headers['x-accel-buffering']).toBe('no');
    expect(res.headers['request-id']).toMatch(/^req_/);
    expect(decodeChunks([res.body]).message).toEqual(SAMPLE);
  });
});

describe('authentication and version headers', () => {
  test('a request without a key gets 401 authentication_error', async () => {
    const { res, entry } = await post({}, { 'content-type': 'application/json' }, messagesBody('hi'));
    expect(expectErrorBody(res, 401, 'authentication_error')).toBe('x-api-key header is required');
    expect(entry).toMatchObject({ auth: 'none', status: 401, errorType: 'authentication_error' });
  });

  test('Authorization: Bearer (SDK 1.x) is accepted and recorded as bearer', async () => {
    const { res, entry } = await post(
      {},
      { authorization: 'Bearer k1', 'content-type': 'application/json' },
      messagesBody('hi'),
    );
    expect(res.statusCode).toBe(200);
    expect(entry.auth).toBe('bearer');
    // The journal keeps the scheme, never the key.
    expect(entry.headers.authorization).toBe('Bearer [redacted]');
  });

  test('with apiKey set, another key gets 401 invalid x-api-key and the right one passes by either header', async () => {
    const wrong = await post({ apiKey: 'right' }, { 'x-api-key': 'wrong' }, messagesBody('hi'));
    expect(expectErrorBody(wrong.res, 401, 'authentication_error')).toBe('invalid x-api-key');
    expect(
      (await post({ apiKey: 'right' }, { authorization: 'Bearer right' }, messagesBody('hi'))).res.statusCode,
    ).toBe(200);
    expect(
      (await post({ apiKey: 'right' }, { 'x-api-key': 'right' }, messagesBody('hi'))).res.statusCode,
    ).toBe(200);
  });

  test('requireApiKey false lets a request without a key through', async () => {
    expect((await post({ requireApiKey: false }, {}, messagesBody('hi'))).res.statusCode).toBe(200);
  });

  test.each([
    ['service-version', '2023-06-01'],
    ['anthropic-version', '2023-06-01'],
    ['anthropic-version', '2026-10-21'],
  ])('%s: %s is accepted and recorded', async (header, value) => {
    const { res, entry } = await post({}, { ...KEY, [header]: value }, messagesBody('hi'));
    expect(res.statusCode).toBe(200);
    expect(entry.version).toEqual({ header, value });
  });

  test('a missing version header is recorded, and refused with 400 when required', async () => {
    expect((await post({}, KEY, messagesBody('hi'))).entry.version).toBeNull();
    const { res } = await post({ requireVersion: true }, KEY, messagesBody('hi'));
    expect(expectErrorBody(res, 400, 'invalid_request_error')).toMatch(
      /^anthropic-version: header is required/,
    );
  });

  test('with acceptedVersions, another value is refused with 400 naming it', async () => {
    const { res } = await post(
      { acceptedVersions: ['2023-06-01'] },
      { ...KEY, 'anthropic-version': '1999-01-01' },
      messagesBody('hi'),
    );
    expect(expectErrorBody(res, 400, 'invalid_request_error')).toMatch(/"1999-01-01" is not a valid version/);
  });
});

describe('refused requests', () => {
  test('invalid JSON gets 400 and the journal keeps the raw text', async () => {
    const { res, entry } = await post({}, KEY, '{"model": ');
    expect(expectErrorBody(res, 400, 'invalid_request_error')).toMatch(/^request body is not valid JSON/);
    expect(entry.body).toBe('{"model": ');
  });

  test('a schema violation gets 400 naming the place', async () => {
    const body = {
      ...messagesBody('x'),
      tools: [{ type: 'bash_20250124', name: 'bash' }],
      messages: [
        { role: 'user', content: 'x' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'bash', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', content: 'ok' }] },
      ],
    };
    const { res, entry } = await post({}, KEY, body);
    expect(expectErrorBody(res, 400, 'invalid_request_error')).toBe(
      'messages.2.content.0.tool_use_id: Field required (expected string)',
    );
    expect(entry.bodyError).toBe('messages.2.content.0.tool_use_id: Field required (expected string)');
  });

  test('a body over the limit gets 413 request_too_large', async () => {
    const { res } = await post({ bodyLimit: 1000 }, KEY, messagesBody('x'.repeat(2000)));
    expect(expectErrorBody(res, 413, 'request_too_large')).toMatch(
      /maximum allowed number of bytes \(1000\)/,
    );
  });

  test('the default limit is 32 MiB', async () => {
    const big = JSON.stringify(messagesBody('x'.repeat(32 * 1024 * 1024)));
    const { res } = await post({}, KEY, big);
    expectErrorBody(res, 413, 'request_too_large');
  });

  test('a wrong path or method gets 404 not_found_error', async () => {
    const app = build();
    const wrongPath = await app.inject({ method: 'POST', url: '/v1/message', headers: KEY, payload: '{}' });
    expectErrorBody(wrongPath, 404, 'not_found_error');
    const wrongMethod = await app.inject({ method: 'GET', url: '/v1/messages', headers: KEY });
    expectErrorBody(wrongMethod, 404, 'not_found_error');
    await app.close();
  });

  test('a scripted error reply is sent with its status, type and headers', async () => {
    const { app } = appWith({
      scenario: scriptScenario([{ kind: 'error', status: 429, headers: { 'retry-after': '3' } }]),
    });
    const res = await postMessages(app, 'x');
    expect(expectErrorBody(res, 429, 'rate_limit_error')).toMatch(/rate limit/);
    expect(res.headers['retry-after']).toBe('3');
    await app.close();
  });

  test('a scenario that throws gets 500 api_error naming the failure', async () => {
    const { app } = appWith({
      scenario: () => {
        throw new Error('boom');
      },
    });
    const res = await postMessages(app, 'x');
    expect(expectErrorBody(res, 500, 'api_error')).toBe("the mock's scenario failed: boom");
    await app.close();
  });

  test('never crashes: any method, path, headers and body get a status and, if an error, the real body', async () => {
    const app = build();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'),
        fc.constantFrom('/v1/messages', '/v1/messages?x=1', '/', '/v1', '/v1/messages/'),
        fc.dictionary(
          fc.constantFrom(
            'x-api-key',
            'authorization',
            'content-type',
            'anthropic-version',
            'accept',
            'x-odd',
          ),
          fc.string({ maxLength: 40 }).map((s) => s.replace(/[^\x20-\x7e]/g, '')),
        ),
        fc.oneof(fc.string(), fc.json(), fc.constant(JSON.stringify(messagesBody('x', { stream: true })))),
        async (method, url, headers, payload) => {
          const res = await app.inject({
            method: method as 'GET',
            url,
            headers,
            ...(method === 'GET' ? {} : { payload }),
          });
          expect(res.statusCode).toBeGreaterThanOrEqual(200);
          expect(res.statusCode).toBeLessThan(600);
          if (res.statusCode >= 400 && method !== 'OPTIONS') {
            expect(ErrorBody.safeParse(JSON.parse(res.body)).success).toBe(true);
          }
        },
      ),
      { numRuns: 150 },
    );
    await app.close();
  });
});

describe('faults before the stream', () => {
  test('an HTTP 429 fault for the first request only sends retry-after, then the reply', async () => {
    const { app, state } = appWith({ faults: { httpError: { status: 429, times: 1, retryAfterS: 2 } } });
    const first = await postMessages(app, 'x');
    expectErrorBody(first, 429, 'rate_limit_error');
    expect(first.headers['retry-after']).toBe('2');
    const second = await postMessages(app, 'x');
    expect(second.statusCode).toBe(200);
    expect(state.journal.entries().map((e) => e.status)).toEqual([429, 200]);
    await app.close();
  });

  test.each([
    [529, 'overloaded_error', 'Overloaded'],
    [500, 'api_error', 'Internal server error'],
    [401, 'authentication_error', 'invalid x-api-key'],
  ])('an HTTP %i fault gets %s with the real body', async (status, type, message) => {
    const { app } = appWith({ faults: { httpError: { status } } });
    const res = await postMessages(app, 'x', { stream: true });
    expect(expectErrorBody(res, status, type)).toBe(message);
    await app.close();
  });
});

describe('control API', () => {
  test('PUT scenario with replies, then GET and DELETE the journal', async () => {
    const { app } = appWith();
    const put = await app.inject({
      method: 'PUT',
      url: '/__wirecheck/scenario',
      payload: { replies: [{ kind: 'message', message: { content: [{ type: 'text', text: 'scripted' }] } }] },
    });
    expect(put.statusCode).toBe(200);
    const res = await postMessages(app, 'x');
    expect(JSON.parse(res.body)).toMatchObject({
      content: [{ type: 'text', text: 'scripted' }],
      model: 'mock-model',
    });
    const journal = JSON.parse((await app.inject({ method: 'GET', url: '/__wirecheck/journal' })).body);
    expect(journal).toHaveLength(1);
    expect(journal[0]).toMatchObject({ method: 'POST', url: '/v1/messages', status: 200 });
    expect((await app.inject({ method: 'DELETE', url: '/__wirecheck/journal' })).statusCode).toBe(204);
    expect(JSON.parse((await app.inject({ method: 'GET', url: '/__wirecheck/journal' })).body)).toEqual([]);
    await app.close();
  });

  test('a body nested deeper than 1,000 levels is refused with 400 before parsing, and the journal stays readable', async () => {
    const { app } = appWith();
    const deep = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
    const body = `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"x"}],"metadata":{"user_id":"u"},"extra":${deep}}`;
    const posted = await app.inject({
      method: 'POST',
      url: '/v1/messages',
      headers: { ...KEY, 'content-type': 'application/json' },
      payload: body,
    });
    expect(expectErrorBody(posted, 400, 'invalid_request_error')).toMatch(
      /^request body: JSON nested more than 1000 levels deep \(at offset \d+\): refused before parsing$/,
    );
    const res = await app.inject({ method: 'GET', url: '/__wirecheck/journal' });
    expect(res.statusCode).toBe(200);
    const journal = JSON.parse(res.body);
    expect(journal).toHaveLength(1);
    // Kept as the text it was (a string), never parsed.
    expect(journal[0].body).toBe(body);
    await app.close();
  });

  test('a body nested 1,000 levels deep is accepted, journaled and served back by the journal route', async () => {
    const { app, state } = appWith();
    const inner = `${'['.repeat(990)}${']'.repeat(990)}`;
    const body = `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"x"}],"metadata":{"user_id":"u"},"extra":${inner}}`;
    const posted = await app.inject({
      method: 'POST',
      url: '/v1/messages',
      headers: { ...KEY, 'content-type': 'application/json' },
      payload: body,
    });
    expect(posted.statusCode).toBe(200);
    expect(state.journal.entries()[0]!.body).toEqual(JSON.parse(body));
    const journal = JSON.parse((await app.inject({ method: 'GET', url: '/__wirecheck/journal' })).body);
    expect(journal[0].body).toEqual(JSON.parse(body));
    await app.close();
  });

  test('PUT scenario keeps blocks the spec does not describe: served whole, and streamed as the real API streams them', async () => {
    const { app } = appWith();
    const content = [
      { type: 'thinking', thinking: 'pondering', signature: 'sig_abcdef' },
      { type: 'redacted_thinking', data: 'opaque' },
      { type: 'text', text: 'answer' },
    ];
    const put = await app.inject({
      method: 'PUT',
      url: '/__wirecheck/scenario',
      payload: {
        replies: [
          { kind: 'message', message: { content } },
          { kind: 'message', message: { content } },
        ],
      },
    });
    expect(put.statusCode).toBe(200);
    const buffered = await postMessages(app, 'x');
    expect(JSON.parse(buffered.body).content).toEqual(content);
    const streamed = await postMessages(app, 'x', { stream: true });
    expect(streamed.statusCode).toBe(200);
    const events = decodeChunks([streamed.rawPayload]).frames.map((f) => JSON.parse(f.data));
    expect(events.filter((e) => e.type === 'content_block_start').map((e) => e.content_block)).toEqual([
      { type: 'thinking', thinking: '', signature: '' },
      { type: 'redacted_thinking', data: 'opaque' },
      { type: 'text', text: '' },
    ]);
    expect(events.filter((e) => e.type === 'content_block_delta').map((e) => e.delta)).toEqual([
      { type: 'thinking_delta', thinking: 'pondering' },
      { type: 'signature_delta', signature: 'sig_abcdef' },
      { type: 'text_delta', text: 'answer' },
    ]);
    await app.close();
  });

  test('PUT scenario with a model or fixtures; an invalid one is refused with 400', async () => {
    const { app } = appWith();
    expect(
      (await app.inject({ method: 'PUT', url: '/__wirecheck/scenario', payload: { model: 'bash' } }))
        .statusCode,
    ).toBe(200);
    const fixtures = await app.inject({
      method: 'PUT',
      url: '/__wirecheck/scenario',
      payload: { fixtures: 'fixtures/messages' },
    });
    expect(fixtures.statusCode).toBe(200);
    const res = await postMessages(app, 'hello');
    expect(JSON.parse(res.body).content[0].text).toBe('Hello! How can I help you today?');
    const bad = await app.inject({ method: 'PUT', url: '/__wirecheck/scenario', payload: { model: 'gpt' } });
    expectErrorBody(bad, 400, 'invalid_request_error');
    const outside = await app.inject({
      method: 'PUT',
      url: '/__wirecheck/scenario',
      payload: { fixtures: '/no/such/dir' },
    });
    expect(expectErrorBody(outside, 403, 'permission_error')).toMatch(
      /^fixtures are loaded only from the directories given when the mock started/,
    );
    await app.close();
  });

  test('PUT faults applies a plan; null clears it; an invalid plan is refused', async () => {
    const { app, state } = appWith();
    await app.inject({ method: 'PUT', url: '/__wirecheck/faults', payload: { httpError: { status: 529 } } });
    expect(state.faults).toEqual({ httpError: { status: 529 } });
    const bad = await app.inject({ method: 'PUT', url: '/__wirecheck/faults', payload: { delayMs: -1 } });
    expect(expectErrorBody(bad, 400, 'invalid_request_error')).toMatch(/^invalid fault plan: delayMs/);
    await app.inject({
      method: 'PUT',
      url: '/__wirecheck/faults',
      payload: 'null',
      headers: { 'content-type': 'application/json' },
    });
    expect(state.faults).toBeUndefined();
    await app.close();
  });

  test('PUT faults refuses a key it does not know, at any depth (was 200 with the fault dropped), naming it', async () => {
    const { app, state } = appWith();
    for (const [payload, expected] of [
      [
        { chunkng: { mode: 'random' } },
        /^invalid fault plan: \(root\): unknown key "chunkng" \(expected one of: seed, chunking,/,
      ],
      [
        { stall: { afterFrame: 1, msec: 5 } },
        /^invalid fault plan: stall: unknown key "msec" \(expected one of: afterFrame, ms\)/,
      ],
      [
        { comments: { rate: 0.5, txt: 'x' } },
        /^invalid fault plan: comments: unknown key "txt" \(expected one of: at, rate, text\)/,
      ],
      [
        { malformed: [{ atFrame: 1, kind: 'invalid-json', event: 'x' }] },
        /^invalid fault plan: malformed.0: unknown key "event" \(expected one of: atFrame, kind, eventName\)/,
      ],
    ] as const) {
      const res = await app.inject({ method: 'PUT', url: '/__wirecheck/faults', payload });
      expect(expectErrorBody(res, 400, 'invalid_request_error')).toMatch(expected);
      expect(state.faults).toBeUndefined();
    }
    // Mock options are parsed on arrival too: the library refuses the typo at start.
    expect(() => appWith({ faults: { pings: { rate: 0.1, every: 2 } } as never })).toThrow(
      expect.objectContaining({ issues: [expect.objectContaining({ path: ['pings'], keys: ['every'] })] }),
    );
    await app.close();
  });
});

test('a scenario whose splits are not lists of offsets gets 500 api_error naming them, before any frame', async () => {
  for (const [splits, expected] of [
    ['ab', /splits that are not a list \(string\)/],
    [['ab'], /splits whose item 0 is not a list of offsets/],
    [[[1], ['2']], /splits whose item 1 holds an offset that is not a number \(at 0\)/],
  ] as const) {
    const { app } = appWith({
      scenario: () => ({ kind: 'message', message: SAMPLE, splits: splits as never }),
    });
    const res = await postMessages(app, 'x', { stream: true });
    expect(expectErrorBody(res, 500, 'api_error')).toMatch(expected);
    await app.close();
  }
  // Nothing and null items are one delta each, as in JSON fixtures.
  const { app } = appWith({
    scenario: () => ({ kind: 'message', message: SAMPLE, splits: [null, undefined] as never }),
  });
  const res = await postMessages(app, 'x', { stream: true });
  expect(res.statusCode).toBe(200);
  expect(decodeChunks([res.rawPayload]).message).toEqual(SAMPLE);
  await app.close();
});

test('an error reply with a header Node cannot send gets 500 api_error naming it (was a bare framework 500)', async () => {
  for (const [headers, expected] of [
    [{ 'x-odd': 'a\nb' }, /whose headers are wrong: .*header "x-odd" cannot be sent: Invalid character/],
    [{ 'x-odd': 'é€' }, /header "x-odd" cannot be sent: Invalid character/],
    [{ 'bad name': 'x' }, /header "bad name" cannot be sent: Header name must be a valid HTTP token/],
  ] as [Record<string, string>, RegExp][]) {
    const { app } = appWith({ scenario: () => ({ kind: 'error', status: 429, headers }) });
    expect(expectErrorBody(await postMessages(app, 'x'), 500, 'api_error')).toMatch(expected);
    await app.close();
  }
  // Latin-1 text is sendable (Node writes it byte for byte), as is an empty value.
  const { app } = appWith({
    scenario: () => ({ kind: 'error', status: 429, headers: { 'x-odd': 'é', 'x-e': '' } }),
  });
  const res = await postMessages(app, 'x');
  expect(expectErrorBody(res, 429, 'rate_limit_error')).toBeTruthy();
  expect(res.headers['x-e']).toBe('');
  await app.close();
});

test('an error type named like a member of Object gets a body with that type and message (constructor lost its message)', async () => {
  for (const errorType of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
    const { app } = appWith({ scenario: () => ({ kind: 'error', status: 400, errorType }) });
    const res = await postMessages(app, 'x');
    expect(expectErrorBody(res, 400, errorType)).toBe(errorType);
    await app.close();
  }
});

test("a script's faults are checked as PUT faults are: a mistyped fault gets 500 api_error naming it, before any frame", async () => {
  for (const [faults, expected] of [
    [{ lineEnding: 'nope' }, /^the mock's scenario returned faults the mock cannot apply: lineEnding: /],
    [{ chunking: { mode: 'fixed', size: 0 } }, /faults the mock cannot apply: chunking.size: /],
    [{ disconnectAfterFrame: -1 }, /faults the mock cannot apply: disconnectAfterFrame: /],
    [{ lineEndings: 'crlf' }, /faults the mock cannot apply: \(root\): unknown key "lineEndings"/],
    [
      { httpError: { status: 429, headers: { 'x-a': 'a\r\nb' } } },
      /httpError.headers: header "x-a" cannot be sent/,
    ],
  ] as const) {
    for (const reply of [
      { kind: 'message', message: SAMPLE, faults },
      { kind: 'raw', frames: [{ type: 'ping' }], faults },
    ]) {
      const { app } = appWith({ scenario: () => reply as never });
      expect(expectErrorBody(await postMessages(app, 'x', { stream: true }), 500, 'api_error')).toMatch(
        expected,
      );
      await app.close();
    }
  }
  const { app } = appWith({
    scenario: () => ({ kind: 'message', message: SAMPLE, faults: { lineEnding: 'crlf' } }),
  });
  const res = await postMessages(app, 'x', { stream: true });
  expect(res.statusCode).toBe(200);
  expect(res.body).toContain('event: message_stop\r\n');
  await app.close();
});

test('PUT faults and PUT scenario refuse headers Node cannot send (400), before any request meets them', async () => {
  const { app, state } = appWith();
  const faults = await app.inject({
    method: 'PUT',
    url: '/__wirecheck/faults',
    payload: { httpError: { status: 529, headers: { 'x-a': 'line\nbreak' } } },
  });
  expect(expectErrorBody(faults, 400, 'invalid_request_error')).toMatch(
    /^invalid fault plan: httpError.headers: header "x-a" cannot be sent/,
  );
  expect(state.faults).toBeUndefined();
  const scenario = await app.inject({
    method: 'PUT',
    url: '/__wirecheck/scenario',
    payload: { replies: [{ kind: 'error', status: 529, headers: { 'x-a': '€' } }] },
  });
  expect(scenario.statusCode).toBe(400);
  expect(scenario.body).toMatch(/header \\"x-a\\" cannot be sent/);
  await app.close();
});

test('a raw reply with a frame the mock cannot send gets 500 api_error naming it, before any frame', async () => {
  for (const frames of [
    [null],
    [7],
    [{ data: 5 }],
    [{ foo: 1 }],
    [{ type: 'ping' }, { event: 3, data: 'x' }],
  ]) {
    const { app } = appWith({ scenario: () => ({ kind: 'raw', frames: frames as never }) });
    const res = await postMessages(app, 'x', { stream: true });
    expect(expectErrorBody(res, 500, 'api_error')).toMatch(
      new RegExp(`^the mock's scenario returned a raw reply whose frame ${frames.length - 1} is neither`),
    );
    await app.close();
  }
  const { app } = appWith({
    scenario: () => ({
      kind: 'raw',
      frames: [{ type: 'ping' }, { comment: 'c' }, { event: 'x', data: 'y' }, { data: 'z' }],
    }),
  });
  const res = await postMessages(app, 'x', { stream: true });
  expect(res.statusCode).toBe(200);
  const decoded = decodeChunks([res.rawPayload]);
  expect(decoded.frames.map((f) => [f.event, f.data])).toEqual([
    ['ping', '{"type":"ping"}'],
    ['x', 'y'],
    [undefined, 'z'],
  ]);
  expect(decoded.comments).toEqual(['c']);
  await app.close();
});

test('a stream the mock cannot go on writing is cut, and the journal says why', async () => {
  const { app, state } = appWith({
    scenario: () => ({
      kind: 'message',
      message: { ...SAMPLE, content: [{ type: 'text', text: 'x', meta: 1n }] } as never,
    }),
  });
  const res = await postMessages(app, 'x', { stream: true }).catch((e: Error) => e);
  expect(res).toBeInstanceOf(Error);
  const entry = state.journal.entries()[0]!;
  expect(entry.outcome).toBe('disconnected');
  expect(entry.streamError).toMatch(/^the mock could not stream the scenario's reply: .*BigInt/);
  await app.close();
});

test('a scenario that returns an invalid message gets 500 api_error naming the field', async () => {
  const { app } = appWith({
    scenario: () => ({ kind: 'message', message: { ...SAMPLE, stop_reason: 42 as never } }),
  });
  const res = await postMessages(app, 'x');
  expect(expectErrorBody(res, 500, 'api_error')).toMatch(
    /^the mock's scenario returned an invalid message: stop_reason: /,
  );
  await app.close();
});
