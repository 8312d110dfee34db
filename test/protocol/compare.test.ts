import { describe, expect, it } from 'vitest';
import { describeDifferences, differences } from '../../src/protocol/compare.js';
import { normalizeCallToolResult } from '../../src/protocol/mcp/defaults.js';
import { normalizeMessageRequest, normalizeMessageResponse } from '../../src/protocol/messages/defaults.js';

describe('differences', () => {
  it('finds none between equal values whatever the key order', () => {
    expect(differences({ a: 1, b: [1, { c: 'x' }] }, { b: [1, { c: 'x' }], a: 1 })).toEqual([]);
  });

  it('lists every difference with its path and both values, in document order', () => {
    const found = differences(
      { model: 'm', messages: [{ role: 'user', content: 'hi' }], tools: [{ name: 'bash' }] },
      { model: 'n', messages: [{ role: 'assistant', content: 'hi' }], tools: [{ name: 'bash', extra: 1 }] },
      { extra: 'report' },
    );
    expect(found).toEqual([
      { path: '$.model', kind: 'changed', expected: 'm', actual: 'n' },
      { path: '$.messages[0].role', kind: 'changed', expected: 'user', actual: 'assistant' },
      { path: '$.tools[0].extra', kind: 'extra', actual: 1 },
    ]);
  });

  it('tolerates extra keys by default and reports missing ones', () => {
    expect(differences({ a: 1, b: 2 }, { a: 1, c: 3 })).toEqual([
      { path: '$.b', kind: 'missing', expected: 2 },
    ]);
  });

  it('decides extra keys per path when given a rule', () => {
    const found = differences(
      { o: { a: 1 }, p: { a: 1 } },
      { o: { a: 1, x: 1 }, p: { a: 1, x: 1 } },
      {
        extra: (path) => path === '$.p',
      },
    );
    expect(found.map((d) => d.path)).toEqual(['$.p.x']);
  });

  it('treats arrays of another length as one change at the array', () => {
    expect(differences([1, 2], [1, 2, 3])).toEqual([
      { path: '$', kind: 'changed', expected: [1, 2], actual: [1, 2, 3] },
    ]);
  });

  it('compares a value nested far deeper than the call stack allows', () => {
    let a: unknown = 1;
    let b: unknown = 2;
    for (let i = 0; i < 100_000; i++) {
      a = { k: a };
      b = { k: b };
    }
    const found = differences(a, b);
    expect(found).toHaveLength(1);
    expect(found[0]?.kind).toBe('changed');
  });

  it('stops at the limit', () => {
    const e = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i]));
    expect(differences(e, {}, { limit: 5 })).toHaveLength(5);
  });

  it('describes differences in one line each, abbreviated past a maximum', () => {
    const text = describeDifferences(
      [
        { path: '$.a', kind: 'missing', expected: 1 },
        { path: '$.b', kind: 'extra', actual: 'x' },
        { path: '$.c', kind: 'changed', expected: true, actual: false },
      ],
      2,
    );
    expect(text).toBe('$.a: missing (expected 1); $.b: not expected (got "x"); ... and 1 more');
  });
});

describe('normalizers: a default written out equals a default left out', () => {
  it('MCP CallToolResult isError absent is false', () => {
    const a = normalizeCallToolResult({ content: [{ type: 'text', text: 'x' }] });
    const b = normalizeCallToolResult({ content: [{ type: 'text', text: 'x' }], isError: false });
    expect(differences(a, b, { extra: 'report' })).toEqual([]);
    const c = normalizeCallToolResult({ content: [{ type: 'text', text: 'x' }], isError: true });
    expect(differences(a, c)).toHaveLength(1);
  });

  it('a tool_result without is_error equals one with is_error false, and string content its text block', () => {
    const sent = {
      model: 'm',
      max_tokens: 5,
      messages: [
        { role: 'user', content: 'run it' },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 't', content: 'ok' }],
        },
      ],
    };
    const written = {
      model: 'm',
      max_tokens: 5,
      stream: false,
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'run it' }] },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 't',
              content: [{ type: 'text', text: 'ok' }],
              is_error: false,
            },
          ],
        },
      ],
    };
    expect(
      differences(normalizeMessageRequest(sent), normalizeMessageRequest(written), { extra: 'report' }),
    ).toEqual([]);
  });

  it('a response stop_sequence absent is null', () => {
    expect(
      differences(normalizeMessageResponse({ stop_sequence: null }), normalizeMessageResponse({})),
    ).toEqual([]);
  });

  it('leaves values of another shape unchanged', () => {
    expect(normalizeMessageRequest('x')).toBe('x');
    expect(normalizeCallToolResult([1])).toEqual([1]);
  });
});
