// Floods stdout with lines that are not JSON (64 KiB each), from the start and for ever,
// whatever it is sent.
import { forever, serve } from './lib.mjs';

const line = `${'not json '.repeat(7281)}\n`;
serve({
  async onStart(out) {
    await forever(out, line);
  },
});
