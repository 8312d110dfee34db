import { describe, expect, test } from 'vitest';
import { ToolJournal, type ToolJournalEntry } from '../../../src/mocks/tools/index.js';
import { earlyMessage } from '../../../src/suites/tool-client/checks/lifecycle.js';
import type { CaseResult } from '../../../src/suites/tool-client/context.js';

// Over Streamable HTTP the session id comes with the initialize answer, so a client that sends
// a message before that answer sends it without one: the mock journals it under `(none)`, and
// it is early all the same.

const SESSION = '6f1c2d3e-0000-4000-8000-000000000001';
const INITIALIZE = '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}';
const RESULT = '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-03-26"}}';
const INITIALIZED = '{"jsonrpc":"2.0","method":"notifications/initialized"}';
const LIST = '{"jsonrpc":"2.0","id":2,"method":"tools/list"}';

type Line = readonly ['received' | 'sent', string, string];

/** An HTTP case whose journal holds these messages, in order: direction, session, text. */
function caseOf(...lines: Line[]): CaseResult {
  const j = new ToolJournal();
  for (const [direction, session, text] of lines) {
    j.record({ session, transport: 'http', direction, kind: 'message', text, value: JSON.parse(text) });
  }
  const journal: ToolJournalEntry[] = j.entries();
  return { journal } as unknown as CaseResult;
}

describe('earlyMessage over Streamable HTTP', () => {
  test('notifications/initialized without a session id, between initialize and its result, is early', () => {
    const result = caseOf(
      ['received', SESSION, INITIALIZE],
      ['received', '(none)', INITIALIZED],
      ['sent', SESSION, RESULT],
    );
    expect(earlyMessage(result, 'initialized')?.text).toBe(INITIALIZED);
  });

  test('a request without a session id before the result is early; one after it is not', () => {
    const early = caseOf(['received', SESSION, INITIALIZE], ['received', '(none)', LIST]);
    expect(earlyMessage(early, 'request')?.text).toBe(LIST);
    const late = caseOf(
      ['received', SESSION, INITIALIZE],
      ['sent', SESSION, RESULT],
      ['received', '(none)', INITIALIZED],
      ['received', '(none)', LIST],
    );
    expect(earlyMessage(late, 'initialized')).toBeUndefined();
    expect(earlyMessage(late, 'request')).toBeUndefined();
  });

  test('a message without a session id before any initialize is no early one of that initialize', () => {
    const result = caseOf(
      ['received', '(none)', LIST],
      ['received', SESSION, INITIALIZE],
      ['sent', SESSION, RESULT],
    );
    expect(earlyMessage(result, 'request')).toBeUndefined();
  });

  test('a message of another session that was issued is not early for this one', () => {
    const other = '6f1c2d3e-0000-4000-8000-000000000002';
    const result = caseOf(
      ['received', SESSION, INITIALIZE],
      ['received', other, LIST],
      ['sent', SESSION, RESULT],
    );
    expect(earlyMessage(result, 'request')).toBeUndefined();
  });
});
