import { describe, expect, test } from 'vitest';
import {
  answerTo,
  clientRequests,
  duplicateIds,
  firstMethod,
  journalEvidence,
  lifecycleViolation,
  sentCallResult,
  ToolJournal,
  type ToolJournalEntry,
} from '../../../src/mocks/tools/index.js';

function journalOf(...messages: unknown[]): ToolJournalEntry[] {
  return journalIn(messages.map((m) => ['s', 'received', m] as const));
}

/** A journal of messages, each with its session and direction. */
function journalIn(
  messages: readonly (readonly [string, 'received' | 'sent', unknown])[],
): ToolJournalEntry[] {
  const j = new ToolJournal();
  for (const [session, direction, m] of messages) {
    j.record({ session, transport: 'sse', direction, kind: 'message', text: JSON.stringify(m), value: m });
  }
  return j.entries();
}

const req = (id: number | string, method: string) => ({ jsonrpc: '2.0', id, method });
const note = (method: string) => ({ jsonrpc: '2.0', method });

describe('journal queries', () => {
  test('batched messages are read one by one (MCP: a peer MUST support receiving batches)', () => {
    const journal = journalOf(
      req(1, 'initialize'),
      [note('notifications/initialized')],
      [req(2, 'tools/list'), { jsonrpc: '2.0', id: 9001, result: {} }],
    );
    expect(lifecycleViolation(journal)).toBeUndefined();
    expect(clientRequests(journal).map((r) => r.request.method)).toEqual(['initialize', 'tools/list']);
    expect(answerTo(journal, 9001)?.answer).toMatchObject({ kind: 'success', message: { result: {} } });
    const early = journalIn([
      ['s', 'received', req(1, 'initialize')],
      ['s', 'sent', { jsonrpc: '2.0', id: 1, result: {} }],
      ['s', 'received', [req(2, 'tools/call'), note('notifications/initialized')]],
    ]);
    expect(lifecycleViolation(early)?.reason).toBe(
      'tools/call came after the initialize result but before the notifications/initialized notification',
    );
  });

  test('each session has its own lifecycle: a probe session, then the real one', () => {
    const probeThenSession = journalIn([
      ['probe', 'received', req(1, 'initialize')],
      ['real', 'received', req(1, 'initialize')],
      ['real', 'received', note('notifications/initialized')],
      ['real', 'received', req(2, 'tools/call')],
    ]);
    expect(lifecycleViolation(probeThenSession)).toBeUndefined();
    const twice = journalIn([
      ['real', 'received', req(1, 'initialize')],
      ['real', 'received', req(2, 'initialize')],
    ]);
    expect(lifecycleViolation(twice)?.reason).toBe('a second initialize request in the same session');
    const uninitialized = journalIn([
      ['a', 'received', req(1, 'initialize')],
      ['a', 'received', note('notifications/initialized')],
      ['b', 'received', req(2, 'tools/call')],
    ]);
    expect(lifecycleViolation(uninitialized)?.reason).toBe('tools/call came before initialize');
  });

  test("sentCallResult: the result the server sent for the client's last call of a tool, in its session", () => {
    const call = (id: number, name: string) => ({
      ...req(id, 'tools/call'),
      params: { name, arguments: {} },
    });
    const result = (id: number, text: string) => ({
      jsonrpc: '2.0',
      id,
      result: { content: [{ type: 'text', text }] },
    });
    const journal = journalIn([
      ['s', 'received', call(2, 'echo')],
      ['s', 'sent', result(2, 'first')],
      ['other', 'sent', result(3, 'another session')],
      ['s', 'received', [call(3, 'echo')]],
      ['s', 'sent', result(3, '{"b":1,"a":2}')],
    ]);
    expect(sentCallResult(journal, 'echo')).toEqual(result(3, '{"b":1,"a":2}').result);
    expect(sentCallResult(journal, 'nope')).toBeUndefined();
  });

  test('duplicateIds finds a request id used twice in one session (JSON-RPC ids are unique)', () => {
    const dups = duplicateIds(
      journalOf(req(1, 'initialize'), note('notifications/initialized'), req(1, 'tools/call')),
    );
    expect(dups).toHaveLength(1);
    expect(dups[0]?.id).toBe(1);
  });

  test('duplicateIds keeps 1 and "1" apart', () => {
    expect(duplicateIds(journalOf(req(1, 'initialize'), req('1', 'tools/call')))).toEqual([]);
  });

  test('lifecycle: initialize, initialized, then requests is fine; ping may come any time', () => {
    const ok = journalOf(
      req(0, 'ping'),
      req(1, 'initialize'),
      req(2, 'ping'),
      note('notifications/initialized'),
      req(3, 'tools/call'),
    );
    expect(lifecycleViolation(ok)).toBeUndefined();
    expect(firstMethod(ok)).toBe('ping');
  });

  test('lifecycle: a request after the initialize result and before notifications/initialized is blamed', () => {
    const bad = journalIn([
      ['s', 'received', req(1, 'initialize')],
      ['s', 'sent', { jsonrpc: '2.0', id: 1, result: {} }],
      ['s', 'received', req(2, 'tools/call')],
      ['s', 'received', note('notifications/initialized')],
    ]);
    expect(lifecycleViolation(bad)).toMatchObject({ kind: 'after-result', entry: { seq: 2 } });
    expect(lifecycleViolation(bad)?.reason).toContain(
      'tools/call came after the initialize result but before',
    );
  });

  test('evidence marks the blamed entry', () => {
    const entries = journalOf(req(1, 'initialize'), req(2, 'tools/call'));
    const evidence = journalEvidence(entries, 't', 1);
    expect(evidence).toMatchObject({ kind: 'jsonrpc', mark: 1 });
    expect(evidence.messages[1]?.direction).toBe('received');
  });
});
