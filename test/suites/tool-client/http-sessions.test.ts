import { beforeAll, expect, test } from 'vitest';
import type { ProtocolRevision } from '../../../src/protocol/mcp/index.js';
import { ensureBuilt, nodeCommand, runAgainst, statusById } from './helpers.js';

beforeAll(ensureBuilt, 120_000);

// The Streamable HTTP checks judge what a rule binds, and only when it was seen: a second
// session's requests carry their own session's id, a request pipelined before the initialize
// answer could carry neither the id nor the version, resuming is optional before 2025-11-25
// (a resumption with a wrong id still warns there: broken-cases.ts, http-wrong-last-event-id),
// and a stream the mock never broke cannot have been resumed.

const P = 'tool-client.http.';

function run(flags: string, only: readonly string[], protocol?: ProtocolRevision) {
  return runAgainst(
    `${nodeCommand('./clients/http-sessions.mjs')} ${flags}`.trim(),
    { only: only.map((id) => P + id) },
    ['http'],
    protocol,
  );
}

const verdicts = (entries: Record<string, string>) =>
  Object.fromEntries(Object.entries(entries).map(([id, status]) => [P + id, status]));

test('a client whose probe session is deleted after its second initialize was answered passes http.session-id: the DELETE carries the id issued to the probe', async () => {
  const result = await run('probe', ['session-id', 'session.deleted', 'result.printed']);
  expect(statusById(result)).toEqual(
    verdicts({ 'session-id': 'pass', 'session.deleted': 'pass', 'result.printed': 'pass' }),
  );
}, 120_000);

test('a client that pipelines tools/list before the initialize result (no session id, no version yet) passes the header MUSTs and warns on the SHOULD NOT', async () => {
  const result = await run(
    'pipeline',
    ['session-id', 'protocol-version-header', 'lifecycle.requests-after-initialize-result'],
    '2025-06-18',
  );
  expect(statusById(result)).toEqual(
    verdicts({
      'session-id': 'pass',
      'protocol-version-header': 'pass',
      'lifecycle.requests-after-initialize-result': 'warn',
    }),
  );
}, 120_000);

test('a client that never sends Mcp-Session-Id fails http.session-id where the initialize answer took 1.5 s too; its refused tools/call broke no stream to resume', async () => {
  const result = await run('no-session-id', ['session-id', 'stream.resumed'], '2025-11-25');
  expect(statusById(result)).toEqual(verdicts({ 'session-id': 'fail', 'stream.resumed': 'skip' }));
  const sessionId = result.checks.find((c) => c.id === `${P}session-id`)!;
  expect(sessionId.message).toMatch(
    /a POST \(notifications\/initialized\) after the initialize answer carried no Mcp-Session-Id, not a session id the server issued \(the initialize answer took 1500 ms/,
  );
  const resumed = result.checks.find((c) => c.id === `${P}stream.resumed`)!;
  expect(resumed.message).toMatch(
    /the mock never ended an answer stream early \(the client's tools\/call POST was answered 400\)/,
  );
}, 120_000);

for (const revision of ['2025-03-26', '2025-06-18'] as const) {
  test(`under ${revision}, where resuming is optional, a client that does not resume a dropped stream is not exercised by http.stream.resumed`, async () => {
    const only = [`${P}stream.resumed`, `${P}answer.event-stream`];
    const result = await runAgainst(
      nodeCommand('./clients/http-no-resume.mjs'),
      { only },
      ['http'],
      revision,
    );
    expect(statusById(result)).toEqual({
      [`${P}stream.resumed`]: 'skip',
      [`${P}answer.event-stream`]: 'pass',
    });
    const resumed = result.checks.find((c) => c.id === `${P}stream.resumed`)!;
    expect(resumed.skipKind).toBe('not-exercised');
    expect(resumed.message).toContain(`in ${revision} resuming is optional`);
  }, 120_000);
}

test('a client that sends its tools/call as a one-element batch has that answer stream dropped too, resumes it after the retry, and passes', async () => {
  const result = await run('batch-call', ['stream.resumed', 'stream.retry-respected'], '2025-11-25');
  expect(statusById(result)).toEqual(
    verdicts({ 'stream.resumed': 'pass', 'stream.retry-respected': 'pass' }),
  );
}, 120_000);

// The mock answers a second standalone GET stream of a session 409, as the official SDK's server
// does, though MCP lets a client stay connected to several SSE streams: the refusal is the mock's
// choice, and no check may blame the client that asked.
test('a client that opens a second GET stream (refused 409 by the mock) is blamed for nothing', async () => {
  const ids = ['accept', 'session-id', 'session.deleted', 'lifecycle.initialized-first', 'result.printed'];
  const result = await run('two-get-streams', ids);
  expect(
    statusById(result),
    result.checks.map((c) => `${c.id}: ${c.status}: ${c.message}`).join('\n'),
  ).toEqual(verdicts(Object.fromEntries(ids.map((id) => [id, 'pass']))));
}, 120_000);
