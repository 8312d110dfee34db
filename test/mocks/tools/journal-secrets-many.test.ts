import { afterEach, expect, test } from 'vitest';
import {
  type RunningMockToolServer,
  startStreamableHttpMockToolServer,
  ToolJournal,
} from '../../../src/mocks/tools/index.js';

/** Far more than the journal keeps learned (64). */
const LEARNED = 200;

// A CI suite runs many client sessions against one mock, each with its own token: the journal
// must scrub every new session's token, not only the first few it learned.

let server: RunningMockToolServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const tokenOf = (i: number) => `tok_${String(i).padStart(4, '0')}_abcdefghijklmnopqrstuvwxyz0123`;
const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } },
});

test('the 40th session of a mock, each with its own bearer token, has its token scrubbed from its call and the echo', async () => {
  server = await startStreamableHttpMockToolServer({ faults: { httpAnswer: 'json' } });
  const headers = (token: string, sid?: string) => ({
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    authorization: `Bearer ${token}`,
    ...(sid === undefined ? {} : { 'mcp-session-id': sid }),
  });
  let sid = '';
  for (let i = 0; i < 40; i++) {
    const r = await fetch(server.url, { method: 'POST', headers: headers(tokenOf(i)), body: INIT });
    await r.text();
    sid = r.headers.get('mcp-session-id')!;
  }
  const token = tokenOf(39);
  const call = JSON.stringify({
    jsonrpc: '2.0',
    id: 2,
    method: 'tools/call',
    params: { name: 'echo', arguments: { text: `my key is ${token}` } },
  });
  const c = await fetch(server.url, { method: 'POST', headers: headers(token, sid), body: call });
  expect(await c.text()).toContain(token);
  const journal = server.journal();
  expect(journal.filter((e) => e.session === sid && e.text.includes('my key is [redacted]')).length).toBe(2);
  expect(JSON.stringify(journal)).not.toContain('_abcdefghijklmnopqrstuvwxyz0123');
});

test("an entry is scrubbed of its own request's secrets and its session's, however many were learned since", () => {
  const journal = new ToolJournal();
  const mine = 'sk-mine-0123456789abcdef';
  journal.record(
    { session: 's1', transport: 'http', direction: 'received', kind: 'message', text: 'hello' },
    [mine],
  );
  for (let i = 0; i < LEARNED; i++) journal.learnSecrets([`other-secret-${i}-xxxxxxxx`]);
  const own = journal.record(
    {
      session: 's2',
      transport: 'http',
      direction: 'received',
      kind: 'message',
      text: 'a sk-own-0123456789abcdef',
    },
    ['sk-own-0123456789abcdef'],
  );
  // A reply of session s1 (recorded without a request) still knows s1's key.
  const reply = journal.record({
    session: 's1',
    transport: 'http',
    direction: 'sent',
    kind: 'message',
    text: `echo ${mine}`,
  });
  // The newest learned is scrubbed everywhere; the oldest were forgotten to make room for it.
  const newest = `other-secret-${LEARNED - 1}-xxxxxxxx`;
  const elsewhere = journal.record({
    session: 's3',
    transport: 'http',
    direction: 'sent',
    kind: 'message',
    text: newest,
  });
  expect(own.text).toBe('a [redacted]');
  expect(reply.text).toBe('echo [redacted]');
  expect(elsewhere.text).toBe('[redacted]');
});
