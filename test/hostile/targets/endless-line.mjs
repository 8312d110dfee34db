// Answers the first request with a line that never ends: the start of a JSON-RPC reply,
// then "x" for ever (over SSE: one `data:` line that never ends; a JSON answer over Streamable
// HTTP: a body that never ends).
import { forever, framing, serve } from './lib.mjs';

const start = framing() === 'sse' ? 'event: message\ndata: ' : '';
const chunk = 'x'.repeat(64 * 1024);
/** Sessions already answered (one endless answer each). */
const started = new WeakSet();
serve({
  async onRequest(request, out) {
    if (started.has(out)) return;
    started.add(out);
    await out.write(`${start}{"jsonrpc":"2.0","id":${JSON.stringify(request.id ?? null)},"result":{"text":"`);
    await forever(out, chunk);
  },
});
