import fc from 'fast-check';
import { expect, test } from 'vitest';
import { arbMessageTemplate, renderMessages } from '../../../src/fuzz/mutations/jsonrpc.js';
import { startMockToolServer } from '../../../src/mocks/tools/index.js';
import { librarySession } from '../../fixtures/library-tool-sessions.js';
import { openStream } from './sse-client.js';

// The bodies the fuzz surfaces POST at the reference tool server (valid, broken, batches,
// garbage, damaged bytes), POSTed to a session of the legacy SSE mock tool server: every POST
// is answered below 500, every event on the session's stream is JSON-RPC, and a tools/list
// POSTed afterwards is answered on that stream (it waits behind every answer queued before it,
// where a ping is answered at once).

const ALIVE = 'wirecheck-alive';
const LIST = new TextEncoder().encode(JSON.stringify({ jsonrpc: '2.0', id: ALIVE, method: 'tools/list' }));

const recording = async () => librarySession('tool-sessions/sse-keep-alive.json');

test.each([
  ['its scenario', undefined],
  ['a recorded session (replay)', recording],
])(
  'any bodies a client POSTs: the SSE mock tool server serving %s never errs, speaks JSON-RPC on the stream and stays alive',
  async (_, replayOf) => {
    const replay = await replayOf?.();
    const server = await startMockToolServer({}, replay && { replay, speed: 0 });
    const origin = new URL(server.url).origin;
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(arbMessageTemplate, { minLength: 1, maxLength: 6 }), async (templates) => {
          const stream = await openStream(server.url);
          try {
            const endpoint = await stream.next((f) => f.event === 'endpoint');
            const url = new URL(endpoint.data, origin).href;
            const post = (body: Uint8Array) =>
              fetch(url, {
                method: 'POST',
                headers: { 'content-type': 'application/json' },
                body: Buffer.from(body),
                signal: AbortSignal.timeout(2_000),
              });
            for (const message of renderMessages(templates)) {
              const res = await post(message.body);
              await res.arrayBuffer();
              expect(res.status, message.what).toBeLessThan(500);
            }
            expect((await post(LIST)).status).toBe(202);
            await stream.next((f) => f.event === 'message' && f.data.includes(`"id":"${ALIVE}"`), 2_000);
            for (const f of stream.frames.filter((f) => f.event !== 'endpoint')) {
              expect(f.event).toBe('message');
              expect(JSON.parse(f.data)).toMatchObject({ jsonrpc: '2.0' });
            }
          } finally {
            stream.close();
            await stream.ended;
          }
        }),
        { numRuns: 100, seed: 20261202 },
      );
    } finally {
      await server.close();
    }
  },
);
