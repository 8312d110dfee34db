// SSE only: answers the first request with a frame that never ends: `data:` lines of 1 KiB
// for ever, never the blank line that would close the frame.
import { forever, serve } from './lib.mjs';

const line = `data: ${'x'.repeat(1024)}\n`;
/** Sessions already answered (one endless answer each). */
const started = new WeakSet();
serve({
  async onRequest(_request, out) {
    if (started.has(out)) return;
    started.add(out);
    await out.write('event: message\n');
    await forever(out, line.repeat(64));
  },
});
