import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  describeValidation,
  FIXTURE_FORMAT,
  FIXTURE_VERSION,
  formatToolSession,
  parseFixture,
  validateFixture,
} from '../../../src/fixtures/index.js';
import {
  journalLine,
  sessionOfJournal,
  TOOL_SESSION_JOURNAL,
  type ToolJournalEntry,
} from '../../../src/fixtures/tool-session-journal.js';
import { cli } from '../../cli/fake-suites.js';

const HEAD = {
  format: FIXTURE_FORMAT,
  version: FIXTURE_VERSION,
  kind: 'tool-session',
  recordedAt: '2026-12-07T22:00:00.000Z',
  source: 'test',
  transport: 'stdio',
  server: 'server',
} as const;

/** A request whose answer came after the cut, so never in the file. */
const ASKED: ToolJournalEntry[] = [
  { message: { atMs: 1, direction: 'client->server', text: '{"jsonrpc":"2.0","id":0,"method":"ping"}' } },
  {
    message: { atMs: 2, direction: 'client->server', text: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' },
  },
  { message: { atMs: 3, direction: 'server->client', text: '{"jsonrpc":"2.0","id":0,"result":{}}' } },
];

const journal = (...entries: ToolJournalEntry[]) =>
  [{ journal: TOOL_SESSION_JOURNAL, head: HEAD } as const, ...entries].map(journalLine).join('');

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wirecheck-cut-validate-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('fixtures validate reports a cut tool session as such: a note, not a failure (as a cut messages exchange)', () => {
  test('cut at the limit: valid, the note names the bytes not recorded, an unanswered request is put down to the cut', () => {
    const session = sessionOfJournal(
      journal(...ASKED, { end: { endAtMs: 9, exit: { code: 0, signal: null }, unrecordedBytes: 5000 } }),
      'test',
    );
    expect(session).toMatchObject({ truncated: true, unrecordedBytes: 5000 });
    const validation = validateFixture(session);
    expect(validation.ok).toBe(true);
    expect(validation.recorded).toContain(
      "a cut recording (truncated): past the recorder's limit, 5000 bytes more of the session were relayed but not recorded",
    );
    expect(validation.recorded).toContain(
      'message 1 (tools/list) is never answered in what was recorded (the recording was cut: its answer may have come after)',
    );
    expect(describeValidation(validation)).toMatch(/^ok: .*\(records a cut recording \(truncated\)/);
  });

  test('a journal a killed recorder left (no end line) is a cut session too, saying so', () => {
    const session = sessionOfJournal(`${journal(...ASKED)}{"message":{"atMs":4,"dir`, 'killed.json.partial');
    expect(session.truncated).toBe(true);
    expect(session.unrecordedBytes).toBeUndefined();
    const validation = validateFixture(session);
    expect(validation.ok).toBe(true);
    expect(validation.recorded[0]).toBe(
      'a cut recording (truncated): the recorder stopped before the session ended and left its journal, the session so far',
    );
  });

  test('an ended session within the limit has no marker and no note', () => {
    const session = sessionOfJournal(
      journal(...ASKED.slice(0, 1), ASKED[2]!, { end: { endAtMs: 9, exit: { code: 0, signal: null } } }),
      'test',
    );
    expect(session.truncated).toBeUndefined();
    expect(validateFixture(session).recorded).toEqual([]);
  });

  test('the format: unrecordedBytes only on a session marked truncated', () => {
    const whole = sessionOfJournal(journal({ end: { endAtMs: 1 } }), 'test');
    expect(() => parseFixture({ ...whole, unrecordedBytes: 10 }, 'bad.json')).toThrow(
      /unrecordedBytes.*`truncated: true` is missing/,
    );
  });

  test('wirecheck fixtures validate FILE: exit 0, the line says the recording was cut', async () => {
    const session = sessionOfJournal(journal(...ASKED, { end: { endAtMs: 9, unrecordedBytes: 70 } }), 'test');
    const file = join(dir, 'cut.json');
    await writeFile(file, formatToolSession(session));
    const run = await cli(['fixtures', 'validate', file]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      `${file}: ok: stdio tool session, 2 message(s) to the server, 1 to the client, 1 request(s) answered (records a cut recording (truncated): past the recorder's limit, 70 bytes more`,
    );
  });
});
