import fc from 'fast-check';
import { expect, test } from 'vitest';
import { arbMessageTemplate, renderMessages } from '../../../src/fuzz/mutations/jsonrpc.js';
import { buildStreamableHttpMockToolServer } from '../../../src/mocks/tools/index.js';
import { bodyMessages, JSONRPC_ERRORS } from '../../../src/protocol/jsonrpc/index.js';
import { bodyHasRequest } from '../../../src/protocol/mcp/streamable-http.js';
import { decodeFrames } from '../../../src/protocol/sse/index.js';
import { librarySession } from '../../fixtures/library-tool-sessions.js';

// The bodies the fuzz surfaces POST at the reference tool server (valid, broken, batches,
// garbage, damaged bytes), POSTed in one session of the Streamable HTTP mock tool server: no
// answer is a server error, every body it sends is JSON-RPC, a POST's answer carries every
// answer the session owes its body (one per request, one Invalid Request error per invalid
// message; 202 when none is owed), and the session still answers a tools/list afterwards (it
// waits behind every answer queued before it, where a ping is answered at once).

const ACCEPT = 'application/json, text/event-stream';
const ALIVE = 'wirecheck-alive';
const LIST = JSON.stringify({ jsonrpc: '2.0', id: ALIVE, method: 'tools/list' });
const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 'init',
  method: 'initialize',
  params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } },
});

/** A POST left unanswered fails the case at once (the mock owed a response it never sent), not at the test's timeout. */
function answeredWithin<T>(answer: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within 2 s to ${what}`)), 2_000);
  });
  return Promise.race([answer, late]).finally(() => clearTimeout(timer));
}

/** The JSON-RPC messages of an answer: a JSON body, or the data of each event of a stream. */
function messagesOf(contentType: string, body: string): unknown[] {
  if (body === '') return [];
  if (!contentType.startsWith('text/event-stream')) return [JSON.parse(body)].flat();
  return decodeFrames([body])
    .frames.filter((f) => f.data !== '')
    .flatMap((f) => [JSON.parse(f.data)].flat());
}

/** What the POST of `bytes` must be answered with, once the mock could read it as JSON. */
function owedFor(bytes: Uint8Array): { status: number; ids: unknown[]; invalid: number } | undefined {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return undefined;
  }
  const ids: unknown[] = [];
  let invalid = 0;
  for (const c of bodyMessages(value)) {
    // As the id comes back on the wire (-0 is written 0).
    if (c.kind === 'request') ids.push(JSON.parse(JSON.stringify(c.message.id)));
    else if (c.kind === 'invalid') invalid += 1;
  }
  const status = ids.length + invalid === 0 ? 202 : bodyHasRequest(value) ? 200 : 400;
  return { status, ids, invalid };
}

/** The answer to one POST holds what the session owes its body, and nothing of another request. */
function expectOwedAnswers(status: number, messages: readonly unknown[], bytes: Uint8Array, what: string) {
  const owed = owedFor(bytes);
  if (owed === undefined || (status === 400 && messages.length === 1 && isParseError(messages[0]))) return;
  expect(status, what).toBe(owed.status);
  const answers = messages.filter((m) => typeof m === 'object' && m !== null && !('method' in m));
  const invalid = answers.filter(
    (m) => (m as { error?: { code?: unknown } }).error?.code === JSONRPC_ERRORS.invalidRequest,
  );
  const others = answers.filter((m) => !invalid.includes(m)).map((m) => (m as { id?: unknown }).id);
  expect(invalid.length, what).toBe(owed.invalid);
  expect(others.map((id) => JSON.stringify(id)).sort(), what).toEqual(
    owed.ids.map((id) => JSON.stringify(id)).sort(),
  );
}

function isParseError(m: unknown): boolean {
  return (m as { error?: { code?: unknown } } | undefined)?.error?.code === JSONRPC_ERRORS.parseError;
}

const recording = async () => librarySession('tool-sessions/stdio.json');

test.each([
  ['json', 'its scenario', undefined],
  ['sse', 'its scenario', undefined],
  ['json', 'a recorded session (replay)', recording],
] as const)(
  'any bodies a client POSTs: the Streamable HTTP mock tool server (%s answers) serving %s never errs, answers each POST with what it owes and stays alive',
  async (httpAnswer, _, replayOf) => {
    const replay = await replayOf?.();
    const built = buildStreamableHttpMockToolServer(
      { faults: { httpAnswer } },
      replay && { replay, speed: 0 },
    );
    const post = (payload: string | Buffer, session?: string) =>
      built.app.inject({
        method: 'POST',
        url: '/mcp',
        headers: {
          'content-type': 'application/json',
          accept: ACCEPT,
          ...(session !== undefined && { 'mcp-session-id': session }),
        },
        payload,
      });
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(arbMessageTemplate, { minLength: 1, maxLength: 6 }), async (templates) => {
          const opened = await post(INIT);
          expect(opened.statusCode).toBe(200);
          const session = String(opened.headers['mcp-session-id']);
          await post(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), session);
          for (const message of renderMessages(templates)) {
            const res = await answeredWithin(post(Buffer.from(message.body), session), message.what);
            expect(res.statusCode, message.what).toBeLessThan(500);
            const messages = messagesOf(String(res.headers['content-type'] ?? ''), res.body);
            for (const m of messages) expect(m, message.what).toMatchObject({ jsonrpc: '2.0' });
            expectOwedAnswers(res.statusCode, messages, message.body, message.what);
          }
          const list = await answeredWithin(post(LIST, session), 'the tools/list after the case');
          expect(list.statusCode).toBe(200);
          // A replay answers it from the recording while one is left, else with an error naming it.
          expect(messagesOf(String(list.headers['content-type']), list.body)).toContainEqual(
            replay
              ? expect.objectContaining({ id: ALIVE })
              : expect.objectContaining({ id: ALIVE, result: { tools: expect.any(Array) } }),
          );
        }),
        { numRuns: 150, seed: 20261202 },
      );
    } finally {
      await built.app.close();
    }
  },
);
