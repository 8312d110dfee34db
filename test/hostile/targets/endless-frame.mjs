// SSE only: answers the first request with a frame that never ends: `data:` lines of 1 KiB
// for ever, never the blank line that would close the frame.
import { forever, serve } from './lib.mjs';

const line = `data: ${'x'.repeat(1024)}\n`;
let started = false;
serve({
  async onRequest(_request, out) {
    if (started) return;
    started = true;
    await out.write('event: message\n');
    await forever(out, line.repeat(64));
  },
});
