import { describe, expect, it } from 'vitest';
import {
  acceptanceOf,
  acceptsBothPostAnswers,
  acceptsMediaType,
  mcpSessionIdSchema,
  mediaTypeOf,
  requestIdsOf,
} from '../../../src/protocol/mcp/streamable-http.js';

describe('Streamable HTTP wire helpers', () => {
  it('an Accept header must list both answer types; parameters, case and wildcards are understood', () => {
    expect(acceptsBothPostAnswers('application/json, text/event-stream')).toBe(true);
    expect(acceptsBothPostAnswers('Text/Event-Stream;q=0.9,application/json')).toBe(true);
    expect(acceptsBothPostAnswers('application/json')).toBe(false);
    expect(acceptsBothPostAnswers(undefined)).toBe(false);
    expect(acceptsMediaType('text/*', 'text/event-stream')).toBe(true);
    expect(acceptsMediaType('*/*', 'application/json')).toBe(true);
    expect(acceptsMediaType('text/plain', 'text/event-stream')).toBe(false);
  });

  it('q=0 on the most specific range that covers a type refuses it (RFC 9110, 12.5.1)', () => {
    expect(acceptsMediaType('*/*, text/event-stream;q=0', 'text/event-stream')).toBe(false);
    expect(acceptsMediaType('text/*;q=0, */*', 'text/event-stream')).toBe(false);
    expect(acceptsMediaType('text/*;q=0, text/event-stream', 'text/event-stream')).toBe(true);
    expect(acceptsMediaType('text/event-stream;Q = 0.5', 'text/event-stream')).toBe(true);
    expect(acceptsMediaType('text/event-stream;q=oops', 'text/event-stream')).toBe(true);
    expect(acceptsBothPostAnswers('application/json, text/event-stream;q=0')).toBe(false);
    expect(acceptanceOf('*/*, text/event-stream;q=0', 'text/event-stream')).toEqual({
      verdict: 'refused',
      range: 'text/event-stream',
    });
    expect(acceptanceOf('application/json', 'text/event-stream')).toEqual({ verdict: 'absent' });
  });

  it('the responses a POST owes: requests with a string or finite number id, never -1e400 (no reply can carry it)', () => {
    const body = JSON.parse(
      '[{"jsonrpc":"2.0","id":"a","method":"ping"},{"jsonrpc":"2.0","id":-1e400,"method":"ping"},' +
        '{"jsonrpc":"2.0","id":1e400,"method":"ping"},{"jsonrpc":"2.0","id":7,"method":"ping"},' +
        '{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","id":8,"result":{}},{"jsonrpc":"2.0","id":{},"method":"ping"}]',
    );
    expect([...requestIdsOf(body)]).toEqual(['a', 7]);
  });

  it('a session id is visible ASCII only', () => {
    expect(mcpSessionIdSchema.safeParse('a1-B2_~!').success).toBe(true);
    expect(mcpSessionIdSchema.safeParse('with space').success).toBe(false);
    expect(mcpSessionIdSchema.safeParse('').success).toBe(false);
    expect(mcpSessionIdSchema.safeParse('caf\u00e9').success).toBe(false);
  });

  it('the media type of a Content-Type drops parameters', () => {
    expect(mediaTypeOf('text/event-stream; charset=utf-8')).toBe('text/event-stream');
    expect(mediaTypeOf(undefined)).toBeUndefined();
  });
});
