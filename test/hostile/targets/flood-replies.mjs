// Answers each request with responses of 1 MiB to ids it was never asked, without end, never
// the reply: each one readable and under every size limit, so only a bound on what is kept of
// replies nobody waited for holds the reader's memory.
import { message, serve } from './lib.mjs';

let n = 0;
serve({
  async onRequest(request, out) {
    if (request.id === undefined) return;
    const pad = 'x'.repeat(1024 * 1024);
    for (;;) {
      n += 1;
      const reply = message(JSON.stringify({ jsonrpc: '2.0', id: `stray-${n}`, result: { pad } }));
      if ((await out.write(reply)) === false) return;
    }
  },
});
