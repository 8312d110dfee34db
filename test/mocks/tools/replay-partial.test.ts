import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { FIXTURE_FORMAT, FIXTURE_VERSION, formatToolSession } from '../../../src/fixtures/index.js';
import {
  journalLine,
  sessionOfJournal,
  TOOL_SESSION_JOURNAL,
  type ToolJournalEntry,
} from '../../../src/fixtures/tool-session-journal.js';
import { type LoadedReplay, loadToolReplays } from '../../../src/mocks/tools/index.js';
import { cli } from '../../cli/fake-suites.js';

const HEAD = {
  format: FIXTURE_FORMAT,
  version: FIXTURE_VERSION,
  kind: 'tool-session',
  recordedAt: '2026-12-07T22:00:00.000Z',
  source: 'wirecheck record tools --stdio',
  transport: 'stdio',
  server: 'server',
} as const;

const initialize = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
};
const initialized = (name: string) => ({
  jsonrpc: '2.0',
  id: 0,
  result: { protocolVersion: '2024-11-05', capabilities: { tools: {} }, serverInfo: { name, version: '1' } },
});

/** A stdio session's journal: initialize answered by a server named `name`. */
const journal = (name: string, ...tail: ToolJournalEntry[]) =>
  [
    { journal: TOOL_SESSION_JOURNAL, head: HEAD } as const,
    { message: { atMs: 1, direction: 'client->server', text: JSON.stringify(initialize) } } as const,
    { message: { atMs: 2, direction: 'server->client', text: JSON.stringify(initialized(name)) } } as const,
    ...tail,
  ]
    .map(journalLine)
    .join('');

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wirecheck-replay-partial-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('serve mock-tools --replay DIR reads the .partial journals a killed recorder left (as serve messages --replay and fixtures validate do)', () => {
  test('the journal is served as the session so far, and stderr names it as partial and cut', async () => {
    const replays = join(dir, 'killed');
    await mkdir(replays);
    const file = join(replays, '2026-12-07T22-00-00-000Z-stdio-1-0001.json.partial');
    // Cut mid-line by the kill: the whole lines before it are the session.
    await writeFile(file, `${journal('from-the-journal')}{"message":{"atMs":3,"dire`);
    const run = await cli(
      ['serve', 'mock-tools', '--transport', 'stdio', '--replay', replays, '--speed', 'max'],
      {
        stdin: `${JSON.stringify(initialize)}\n`,
      },
    );
    expect(run.stderr).toContain(
      `wirecheck serve mock-tools: serving ${file}: a partial recording (the journal a recorder left) cut (truncated): the session so far, as journaled until the recorder stopped; the replay ends where the recording does\n`,
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('"name":"from-the-journal"');
  });

  test('a directory: whole files are served quietly, a partial or cut one is named; every file loaded is told', async () => {
    const replays = join(dir, 'mixed');
    await mkdir(replays);
    const ended = { end: { endAtMs: 5, exit: { code: 0, signal: null } } } as const;
    await writeFile(join(replays, 'a.json'), formatToolSession(sessionOfJournal(journal('a', ended), 'a')));
    const cut = sessionOfJournal(journal('b', { end: { ...ended.end, unrecordedBytes: 4096 } }), 'b');
    await writeFile(join(replays, 'b.json'), formatToolSession(cut));
    await writeFile(join(replays, 'c.json.partial'), journal('c'));
    const loaded: LoadedReplay[] = [];
    const sessions = await loadToolReplays(
      replays,
      () => {},
      (l) => loaded.push(l),
    );
    expect(sessions).toHaveLength(3);
    expect(loaded.map((l) => [l.file.slice(replays.length + 1), l.partial, l.session.truncated])).toEqual([
      ['a.json', false, undefined],
      ['b.json', false, true],
      ['c.json.partial', true, true],
    ]);
    const run = await cli(['serve', 'mock-tools', '--transport', 'stdio', '--replay', replays], {
      stdin: '',
    });
    expect(run.code).toBe(0);
    expect(run.stderr).not.toContain('a.json');
    expect(run.stderr).toContain(
      `serving ${join(replays, 'b.json')}: a recording cut (truncated): past the recorder's limit, 4096 bytes of the session were relayed but not recorded`,
    );
    expect(run.stderr).toContain(`serving ${join(replays, 'c.json.partial')}: a partial recording`);
  });
});
