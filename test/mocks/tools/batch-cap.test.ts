import { PassThrough } from 'node:stream';
import { afterEach, expect, test } from 'vitest';
import { MAX_BATCH_MESSAGES } from '../../../src/mocks/limits.js';
import {
  type RunningMockToolServer,
  runStdioMockToolServer,
  startStreamableHttpMockToolServer,
} from '../../../src/mocks/tools/index.js';

// A mock answered every message of a batch in one go, each answer a journal entry: one batch of
// more pings than the journal keeps pushed the client's initialize out before anything could stop
// it. A batch past MAX_BATCH_MESSAGES is refused whole, as an invalid batch is.

// A cap that is not a number would make these batches empty, refused for that instead.
test('the cap is a whole number of messages', () => {
  expect(Number.isInteger(MAX_BATCH_MESSAGES) && MAX_BATCH_MESSAGES > 0).toBe(true);
});

const pings = (n: number) =>
  Array.from({ length: n }, (_, k) => ({ jsonrpc: '2.0', id: k + 1, method: 'ping' }));

test('stdio: a batch past the cap is one Invalid Request, id null, naming the cap; a batch at the cap is answered item by item', async () => {
  const input = new PassThrough();
  const out: string[] = [];
  const done = runStdioMockToolServer({}, { input, write: (t) => void out.push(t) });
  input.write(`${JSON.stringify(pings(MAX_BATCH_MESSAGES + 1))}\n`);
  input.write(`${JSON.stringify(pings(MAX_BATCH_MESSAGES))}\n`);
  input.end();
  const { journal } = await done;
  const answers = out
    .join('')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as unknown);
  // Pings are answered at once, an error after the replies queued before it: the refusal may come last.
  const refusals = answers.filter((a) => (a as { error?: unknown }).error !== undefined);
  expect(refusals).toEqual([
    {
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32600,
        message: expect.stringContaining(
          `a batch of ${MAX_BATCH_MESSAGES + 1} messages, more than the ${MAX_BATCH_MESSAGES}`,
        ),
      },
    },
  ]);
  // The batch at the cap: one answer per ping.
  expect(answers.length).toBe(1 + MAX_BATCH_MESSAGES);
  // Both batches received, the refusal and the answers sent: nothing forgotten.
  expect(journal.dropped).toBe(0);
});

let server: RunningMockToolServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

test('Streamable HTTP: a batch past the cap is answered 400 with one Invalid Request, id null', async () => {
  server = await startStreamableHttpMockToolServer({});
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const init = await fetch(server.url, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    }),
  });
  await init.text();
  const sid = init.headers.get('mcp-session-id')!;
  const r = await fetch(server.url, {
    method: 'POST',
    headers: { ...headers, 'mcp-session-id': sid },
    body: JSON.stringify(pings(MAX_BATCH_MESSAGES + 1)),
  });
  expect(r.status).toBe(400);
  const answer = [await r.json()].flat();
  expect(answer).toHaveLength(1);
  expect(answer[0]).toMatchObject({ id: null, error: { code: -32600 } });
  expect(server.journal().filter((e) => e.direction === 'sent' && e.kind === 'message')).toHaveLength(2);
});
