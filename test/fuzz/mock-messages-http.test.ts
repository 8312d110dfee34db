import fc from 'fast-check';
import fastify from 'fastify';
import { describe, expect, test } from 'vitest';
import { runSurface } from '../../src/fuzz/run-surface.js';
import {
  arbHttpCase,
  arbWrongShape,
  BODY_LIMIT,
  type Expected,
  mockMessagesHttpSurface,
} from '../../src/fuzz/surfaces/mock-messages-http.js';
import { findSurface } from '../../src/fuzz/surfaces.js';
import { build, validateRequest } from '../../src/mocks/messages/index.js';

const RUN = { seed: 424242, runs: 300, caseTimeoutMs: 5_000 };
/** Rules of the mock's own conversation checks that the cases break one at a time. */
const BROKEN_RULES = [
  'system block of blank text',
  'turn of blank text',
  'empty text block',
  'tool_use not answered in the next turn',
  'tool_result without its tool_use',
  'tool blocks without tools',
];

function outcomeOf(e: Expected): string {
  if (e.outcome === 'message') return e.stream ? '200 stream' : '200 buffered';
  if (e.outcome === 'error') return `${e.status} ${e.errorType}`;
  return e.outcome;
}

describe('mock-messages-http fuzz surface', () => {
  test('the mock messages service keeps every documented outcome over 300 cases', async () => {
    const surface = findSurface('mock-messages-http');
    expect(surface).toBeDefined();
    const result = await runSurface(surface!, RUN);
    if (result.status === 'failed') {
      throw new Error(
        `${result.error}\ncounterexample: ${result.counterexample}\nseed ${result.seed} path ${result.path}`,
      );
    }
    expect(result).toMatchObject({ surface: 'mock-messages-http', status: 'passed', cases: 300 });
  });

  test('the cases reach every documented outcome, through inject and through a socket', () => {
    const cases = fc.sample(arbHttpCase, { numRuns: 3_000, seed: 7 });
    const outcomes = new Set(cases.map((c) => outcomeOf(c.expected)));
    for (const outcome of [
      '200 buffered',
      '200 stream',
      '400 invalid_request_error',
      '401 authentication_error',
      '404 not_found_error',
      '413 request_too_large',
      '415 invalid_request_error',
      '431 invalid_request_error',
      'no body',
      'closed',
    ]) {
      expect(outcomes).toContain(outcome);
    }
    expect(new Set(cases.map((c) => c.via))).toEqual(new Set(['inject', 'socket']));
    const injected = cases.flatMap((c) => (c.via === 'inject' && c.body ? [c.body.length] : []));
    expect(injected.some((n) => n === BODY_LIMIT || n === BODY_LIMIT + 1)).toBe(true);
  });

  test("every body the cases call valid is one the mock's request rules accept", () => {
    const cases = fc.sample(arbHttpCase, { numRuns: 20_000, seed: 7 });
    const valid = cases.flatMap((c) =>
      c.via === 'inject' && c.expected.outcome === 'message' && c.body ? [c.body] : [],
    );
    expect(valid.length).toBeGreaterThan(1_000);
    const refused = valid.flatMap((body) => {
      const check = validateRequest(JSON.parse(Buffer.from(body).toString()));
      return check.ok ? [] : [check.message];
    });
    expect(refused).toEqual([]);
  });

  test('each rule a case breaks on purpose is refused with the message the case expects', () => {
    const seen = new Set<string>();
    const wrong: string[] = [];
    for (const c of fc.sample(arbWrongShape, { numRuns: 5_000, seed: 11 })) {
      if (c.verdict.kind !== 'refused' || !c.bytes) continue;
      seen.add(c.what);
      const check = validateRequest(JSON.parse(Buffer.from(c.bytes).toString()));
      const message = check.ok ? '(accepted)' : check.message;
      const expected = c.verdict.message;
      if (!expected.test(message)) {
        wrong.push(`${c.what}: ${message} (expected ${String(expected)})`);
      }
    }
    expect(wrong.slice(0, 5)).toEqual([]);
    expect(BROKEN_RULES.filter((rule) => !seen.has(rule))).toEqual([]);
  });

  test('a service that answers every request with a message fails, with a printed counterexample', async () => {
    const alwaysOk = () => {
      const app = fastify();
      app.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
      app.all('*', (_request, reply) =>
        reply.header('request-id', 'req_011CAAAAAAAAAAAAAAAAAAAA').send({
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          model: 'mock-model',
          content: [],
          stop_reason: 'end_turn',
          stop_sequence: null,
          usage: { input_tokens: 1, output_tokens: 1 },
        }),
      );
      return app;
    };
    const result = await runSurface(mockMessagesHttpSurface({ build: alwaysOk }), RUN);
    expect(result.status).toBe('failed');
    if (result.status !== 'failed') return;
    expect(result.seed).toBe(RUN.seed);
    expect(result.error).toMatch(/^FuzzViolation: /);
    expect(result.counterexample).toMatch(/expected /);
  });

  test('a body that is not UTF-8 must be refused: a mock that decodes it lossily fails', async () => {
    const lossy = (opts: Parameters<typeof build>[0]) => {
      const app = build(opts);
      app.removeAllContentTypeParsers();
      app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));
      return app;
    };
    const result = await runSurface(mockMessagesHttpSurface({ build: lossy }), { ...RUN, runs: 2_000 });
    expect(result.status).toBe('failed');
    if (result.status === 'failed') expect(result.error).toContain('request body is not valid UTF-8');
  });
});

// Found by this surface; they belong with the mock's route tests.
describe('mock messages service regressions', () => {
  const KEY = { 'x-api-key': 'k', 'content-type': 'application/json' };

  test('a valid request nesting 990 levels deep in a tool input gets 200, not a stack overflow', async () => {
    const app = build();
    const deep = `${'['.repeat(990)}${']'.repeat(990)}`;
    const payload =
      '{"model":"m","max_tokens":5,"tools":[{"type":"bash_20250124","name":"bash"}],"messages":[' +
      '{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"tool_use","id":"t",' +
      `"name":"bash","input":{"command":"ls","deep":${deep}}}]}]}`;
    const res = await app.inject({ method: 'POST', url: '/v1/messages', headers: KEY, payload });
    await app.close();
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(res.body).usage.input_tokens).toBeGreaterThan(1_980 / 4);
  });

  test('a request nesting 10,000 levels deep is refused with 400 before parsing (MAX_BODY_DEPTH)', async () => {
    const app = build();
    const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
    const payload = `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"}],"extra":${deep}}`;
    const res = await app.inject({ method: 'POST', url: '/v1/messages', headers: KEY, payload });
    await app.close();
    expect(res.statusCode).toBe(400);
    expect(JSON.parse(res.body).error.message).toMatch(/nested more than 1000 levels deep/);
  });

  test('a body with bytes that are not UTF-8 gets 400 invalid_request_error', async () => {
    const app = build();
    const payload = Buffer.concat([
      Buffer.from('{"model":"m'),
      Buffer.from([0xff]),
      Buffer.from('","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}'),
    ]);
    const res = await app.inject({ method: 'POST', url: '/v1/messages', headers: KEY, payload });
    await app.close();
    expect(res.statusCode).toBe(400);
    expect(JSON.parse(res.body).error).toEqual({
      type: 'invalid_request_error',
      message: 'request body is not valid UTF-8',
    });
  });
});
