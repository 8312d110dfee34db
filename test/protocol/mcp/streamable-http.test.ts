import { describe, expect, it } from 'vitest';
import {
  acceptsBothPostAnswers,
  acceptsMediaType,
  mcpSessionIdSchema,
  mediaTypeOf,
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
