import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { createMockMessagesApp, scriptScenario, validateRequest } from '../../../src/mocks/messages/index.js';
import { KEY, SAMPLE, SAMPLE_SPLITS } from './helpers.js';

/*
 * zod describes every bad element of an array; a million of them (a body of a few MB, well
 * under the mock's 32 MiB limit) took a gigabyte of heap and killed wirecheck. Each such
 * request must be refused at its first bad element, as the real API names one place, with
 * few issues described on the way (counted where zod words each one).
 */

const MILLION = 1_000_000;
const head = '"model":"m","max_tokens":1';
/** `n` copies of `item`, comma-separated, as JSON array items (built as text: fast). */
const many = (item: string, n = MILLION) => `${item},`.repeat(n - 1) + item;
const user = '{"role":"user","content":"hi"}';
/** Issues zod may describe for one refusal: a few per level of nesting, never one per element. */
const FEW_ISSUES = 50;

/** How many issues zod worded while `run` ran (zod asks `customError` for each one without a message of its own). */
function issuesWordedBy<T>(run: () => T): { result: T; issues: number } {
  let issues = 0;
  const before = z.config().customError;
  z.config({
    customError: () => {
      issues++;
      return undefined;
    },
  });
  try {
    const result = run();
    return { result, issues };
  } finally {
    z.config({ customError: before });
  }
}

const refusal = (text: string) => {
  const body: unknown = JSON.parse(text);
  const { result, issues } = issuesWordedBy(() => validateRequest(body));
  expect(issues).toBeLessThan(FEW_ISSUES);
  return result.ok ? undefined : result.message;
};

describe('a request with a million bad elements in one array is refused at the first', () => {
  test('in messages', () => {
    expect(refusal(`{${head},"messages":[${many('0')}]}`)).toBe('messages.0: expected object, got number');
    expect(refusal(`{${head},"messages":[${user},${many('{"role":"user"}')}]}`)).toBe(
      'messages.1.content: expected string or array, got undefined',
    );
  });

  test("in one turn's content, after good blocks, and in a tool_result's content", () => {
    const good = '{"type":"text","text":"ok"}';
    expect(
      refusal(
        `{${head},"messages":[${user},{"role":"user","content":[${good},${good},${good},${many('{"type":"text","text":5}')}]}]}`,
      ),
    ).toBe('messages.1.content.3.text: expected string, got number');
    expect(
      refusal(`{${head},"messages":[{"role":"user","content":[${good},${many('{"type":"text"}')}]}]}`),
    ).toBe('messages.0.content.1.text: Field required (expected string)');
    const result = `{"type":"tool_result","tool_use_id":"t1","content":[${good},${many('7')}]}`;
    expect(refusal(`{${head},"messages":[{"role":"user","content":[${result}]}]}`)).toBe(
      'messages.0.content.0.content.1: expected object, got number',
    );
  });

  test("in tools, a tool's required names, system and stop_sequences", () => {
    const messages = `"messages":[${user}]`;
    const bash = '{"type":"bash_20250124","name":"bash"}';
    expect(refusal(`{${head},${messages},"tools":[${bash},${many('0')}]}`)).toBe(
      'tools.1: expected object, got number',
    );
    const custom = `{"name":"f","input_schema":{"type":"object","required":["a",${many('0')}]}}`;
    expect(refusal(`{${head},${messages},"tools":[${custom}]}`)).toBe(
      'tools.0.input_schema.required.1: expected string, got number',
    );
    expect(refusal(`{${head},${messages},"system":[${many('0')}]}`)).toBe(
      'system.0: expected object, got number',
    );
    expect(refusal(`{${head},${messages},"stop_sequences":["x",${many('0')}]}`)).toBe(
      'stop_sequences.1: expected string, got number',
    );
  });

  test('an earlier field still comes first, as in the whole parse', () => {
    expect(refusal(`{"model":"","max_tokens":1,"messages":[${many('0')}]}`)).toMatch(/^model: /);
  });
});

describe('a long valid request is still served', () => {
  const turns = (n: number) =>
    Array.from({ length: n }, (_, i) => ({
      role: i % 2 === 0 ? 'user' : 'assistant',
      content: [{ type: 'text', text: `turn ${i}` }],
    }));

  test('validated whole, as it came', () => {
    const body = { model: 'm', max_tokens: 1, messages: turns(20_001), stop_sequences: ['a', 'b'] };
    const check = validateRequest(body);
    expect(check.ok).toBe(true);
    expect(check.ok && check.request.messages).toHaveLength(20_001);
  });

  test('through the route: a million bad turns get a 400 naming the first, a long conversation its reply', async () => {
    const { app } = createMockMessagesApp({
      scenario: scriptScenario([{ kind: 'message', message: SAMPLE, splits: SAMPLE_SPLITS }]),
    });
    try {
      const bad = await app.inject({
        method: 'POST',
        url: '/v1/messages',
        headers: KEY,
        payload: `{${head},"messages":[${user},${many('[]')}]}`,
      });
      expect(bad.statusCode).toBe(400);
      expect(JSON.parse(bad.body).error).toEqual({
        type: 'invalid_request_error',
        message: 'messages.1: expected object, got array',
      });
      const good = await app.inject({
        method: 'POST',
        url: '/v1/messages',
        headers: KEY,
        payload: { model: 'm', max_tokens: 1, messages: turns(20_001) },
      });
      expect(good.statusCode).toBe(200);
      expect(JSON.parse(good.body).content).toEqual(SAMPLE.content);
    } finally {
      await app.close();
    }
  });
});
