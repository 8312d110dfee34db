// Streamable HTTP: answers each request on its POST (--reply-after MS later, default at once),
// and floods every GET stream with responses of 1 MiB no request asked for (a routing fault,
// and a test of what a reader of that stream keeps meanwhile).
import { setTimeout as delay } from 'node:timers/promises';
import { forever, message, opt, serve } from './lib.mjs';

const replyAfter = Number(opt('--reply-after', '0'));

const big = message(
  JSON.stringify({ jsonrpc: '2.0', id: 999_999, result: { text: 'x'.repeat(1024 * 1024) } }),
);
serve({
  async onRequest(request, out) {
    if (request.id === undefined) return;
    if (request.method !== 'initialize') await delay(replyAfter);
    await out.write(message(JSON.stringify({ jsonrpc: '2.0', id: request.id, result: {} })));
  },
  async onStart(out) {
    await forever(out, big);
  },
});
