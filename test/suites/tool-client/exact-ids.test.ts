import { beforeAll, describe, expect, test } from 'vitest';
import { duplicateIds, ToolJournal, type ToolJournalEntry } from '../../../src/mocks/tools/index.js';
import { ensureBuilt, nodeCommand, notPassed, runAgainst } from './helpers.js';

// JSON-RPC 2.0 ids may be any number, and the spec's table shows integers: a client with 64-bit
// integers may use ids past 2^53, which JSON.parse rounds. The mock answers with the client's
// digits, and the journal's queries tell such ids apart by them.

beforeAll(ensureBuilt, 120_000);

/** A journal of client lines as written (their text is what counts). */
function journalOf(...lines: string[]): ToolJournalEntry[] {
  const j = new ToolJournal();
  for (const text of lines) {
    j.record({
      session: 's',
      transport: 'stdio',
      direction: 'received',
      kind: 'message',
      text,
      value: JSON.parse(text),
    });
  }
  return j.entries();
}

describe('duplicateIds with ids past 2^53', () => {
  test('9007199254740992 and 9007199254740993 are two ids, though JSON.parse makes them one number', () => {
    const journal = journalOf(
      '{"jsonrpc":"2.0","id":9007199254740992,"method":"initialize","params":{}}',
      '{"jsonrpc":"2.0","id":9007199254740993,"method":"tools/call","params":{"name":"echo"}}',
      '[{"jsonrpc":"2.0","id":9007199254740995,"method":"tools/list"},{"jsonrpc":"2.0","id":9007199254740996,"method":"ping"}]',
    );
    expect(duplicateIds(journal)).toEqual([]);
  });

  test('the same digits twice are a reused id', () => {
    const journal = journalOf(
      '{"jsonrpc":"2.0","id":9007199254740993,"method":"initialize","params":{}}',
      '{"jsonrpc":"2.0","id":9007199254740993,"method":"tools/call","params":{"name":"echo"}}',
    );
    expect(duplicateIds(journal)).toHaveLength(1);
  });
});

test('a client whose integer ids start at 2^53, matched by every digit, passes every check over all three transports', async () => {
  const result = await runAgainst(nodeCommand('./clients/big-ids.mjs'), {}, ['stdio', 'sse', 'http']);
  expect(notPassed(result)).toEqual([]);
  expect(result.checks.filter((c) => c.status === 'pass').length).toBeGreaterThan(60);
}, 300_000);
