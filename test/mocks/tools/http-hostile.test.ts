import fc from 'fast-check';
import { expect, test } from 'vitest';
import { arbMessageTemplate, pingMessage, renderMessages } from '../../../src/fuzz/mutations/jsonrpc.js';
import { buildStreamableHttpMockToolServer } from '../../../src/mocks/tools/index.js';
import { decodeFrames } from '../../../src/protocol/sse/index.js';

// The bodies the fuzz surfaces POST at the reference tool server (valid, broken, batches,
// garbage, damaged bytes), POSTed in one session of the Streamable HTTP mock tool server: no
// answer is a server error, every body it sends is JSON-RPC, and the session still answers
// a ping afterwards.

const ACCEPT = 'application/json, text/event-stream';
const ALIVE = 'wirecheck-alive';
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

test.each(['json', 'sse'] as const)(
  'any bodies a client POSTs: the Streamable HTTP mock tool server (%s answers) never errs, speaks JSON-RPC and stays alive',
  async (httpAnswer) => {
    const built = buildStreamableHttpMockToolServer({ faults: { httpAnswer } });
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
            for (const m of messagesOf(String(res.headers['content-type'] ?? ''), res.body))
              expect(m, message.what).toMatchObject({ jsonrpc: '2.0' });
          }
          const ping = await answeredWithin(post(Buffer.from(pingMessage(ALIVE)), session), 'the ping');
          expect(ping.statusCode).toBe(200);
          expect(messagesOf(String(ping.headers['content-type']), ping.body)).toContainEqual(
            expect.objectContaining({ id: ALIVE, result: {} }),
          );
        }),
        { numRuns: 150, seed: 20261202 },
      );
    } finally {
      await built.app.close();
    }
  },
);
