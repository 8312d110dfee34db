// Answers each request with JSON-RPC notifications for ever, never the reply: every message
// readable and small (a log line), so no size limit is hit; only a bound on what is kept
// holds the reader's memory.
import { forever, message, serve } from './lib.mjs';

const note = message(
  JSON.stringify({
    jsonrpc: '2.0',
    method: 'notifications/message',
    params: { level: 'info', data: 'x'.repeat(200) },
  }),
);
serve({
  async onRequest(request, out) {
    if (request.id === undefined) return;
    await forever(out, note.repeat(256));
  },
});
