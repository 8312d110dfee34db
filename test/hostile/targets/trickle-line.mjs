// A stdio tool server whose answer to the first request is one line that never ends, written
// a byte at a time, each byte its own system call: a reader that holds every chunk of a line
// apart (an array each, some 700 bytes of heap) grows by hundreds of MB within its time budget.
//   node trickle-line.mjs
import { writeSync } from 'node:fs';

let seen = '';
process.stdin.on('data', (chunk) => {
  seen += chunk;
  if (!seen.includes('\n')) return;
  process.stdin.pause();
  write('{"jsonrpc":"2.0","id":0,"result":{"text":"');
  for (;;) write('x');
});

function write(text) {
  for (;;) {
    try {
      writeSync(1, text);
      return;
    } catch (e) {
      // A full non-blocking pipe: try again. Anything else (EPIPE: the reader is gone) ends it.
      if (e.code !== 'EAGAIN') process.exit(0);
    }
  }
}
