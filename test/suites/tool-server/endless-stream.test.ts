import { createServer, type Server } from 'node:http';
import { afterEach, expect, test } from 'vitest';
import { TargetUnavailable } from '../../../src/harness/check.js';
import { DEFAULT_SSE_LIMITS } from '../../../src/protocol/sse/decode.js';
import { openToolServer } from '../../../src/suites/tool-server/context.js';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r) ?? r(undefined));
  server = undefined;
});

/** An SSE server whose stream starts an endpoint event and never ends its data line. */
async function endlessLineServer(): Promise<string> {
  server = createServer((req, res) => {
    if (req.method !== 'GET') return void res.writeHead(202).end();
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    let closed = false;
    res.on('close', () => {
      closed = true;
    });
    const chunk = 'x'.repeat(1 << 16);
    const more = () => {
      // Bounded: a little past the reader's line limit, then the stream stays open.
      for (let sent = 0; !closed && sent < DEFAULT_SSE_LIMITS.maxLineLength / chunk.length + 64; sent++) {
        if (!res.write(chunk)) return void res.once('drain', more);
      }
    };
    res.write('event: endpoint\ndata: /messages');
    more();
  });
  await new Promise<void>((r) => server?.listen(0, '127.0.0.1', r));
  const address = server.address();
  return `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}/sse`;
}

test('a stream cut at the line limit before any endpoint event says so, not that no endpoint event came in time', async () => {
  const url = await endlessLineServer();
  const error = await openToolServer({ kind: 'sse', url }, { httpMs: 20_000 }).then(
    (ctx) => ctx.close().then(() => undefined),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TargetUnavailable);
  const message = (error as Error).message;
  expect(message).toMatch(/line longer than the \d+-character limit/);
  expect(message).toMatch(/before any endpoint event/);
  expect(message).not.toMatch(/within 20000 ms/);
}, 60_000);
