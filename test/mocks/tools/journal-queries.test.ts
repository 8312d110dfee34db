import { describe, expect, test } from 'vitest';
import {
  duplicateIds,
  firstMethod,
  journalEvidence,
  lifecycleViolation,
  ToolJournal,
  type ToolJournalEntry,
} from '../../../src/mocks/tools/index.js';

function journalOf(...messages: unknown[]): ToolJournalEntry[] {
  const j = new ToolJournal();
  for (const m of messages) {
    j.record({
      session: 's',
      transport: 'stdio',
      direction: 'received',
      kind: 'message',
      text: JSON.stringify(m),
      value: m,
    });
  }
  return j.entries();
}

const req = (id: number | string, method: string) => ({ jsonrpc: '2.0', id, method });
const note = (method: string) => ({ jsonrpc: '2.0', method });

describe('journal queries', () => {
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

  test('lifecycle: a request before notifications/initialized is blamed', () => {
    const bad = journalOf(req(1, 'initialize'), req(2, 'tools/call'), note('notifications/initialized'));
    expect(lifecycleViolation(bad)?.reason).toContain('tools/call came before the notifications/initialized');
    expect(lifecycleViolation(bad)?.entry.seq).toBe(1);
  });

  test('evidence marks the blamed entry', () => {
    const entries = journalOf(req(1, 'initialize'), req(2, 'tools/call'));
    const evidence = journalEvidence(entries, 't', 1);
    expect(evidence).toMatchObject({ kind: 'jsonrpc', mark: 1 });
    expect(evidence.messages[1]?.direction).toBe('received');
  });
});
