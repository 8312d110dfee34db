// Answers each request, after `--notes N` notifications of `--note-size` characters of data
// each (1,200 of 64 KiB unless told):
// every message readable and under every size limit, and every request answered, so every
// check runs, in as many sessions as it opens. Only a bound on what the sessions keep
// together holds the reader's memory: each one's own bounds, times the sessions alive at once,
// exhausted a 256 MB heap.
import { message, opt, serve } from './lib.mjs';

const notes = Number(opt('--notes', '1200'));
const noteSize = Number(opt('--note-size', String(64 * 1024)));

const note = message(
  JSON.stringify({
    jsonrpc: '2.0',
    method: 'notifications/message',
    params: { level: 'info', data: 'x'.repeat(noteSize) },
  }),
);
serve({
  async onRequest(request, out) {
    if (request.id === undefined) return;
    for (let i = 0; i < notes / 16; i++) if ((await out.write(note.repeat(16))) === false) return;
    await out.write(message(JSON.stringify({ jsonrpc: '2.0', id: request.id, result: {} })));
  },
});
