// A stdio tool server whose answer to the first request is one line of LONG_LINE_MIB MiB (the
// start of a JSON-RPC reply, then "x"), then a short notification; then it exits. A recorder
// that holds a line whole holds all of it, a few times over.
//   LONG_LINE_MIB=256 node long-line-server.mjs
import { writeSync } from 'node:fs';

const total = Number(process.env.LONG_LINE_MIB ?? 256) * 1024 * 1024;
const chunk = 'x'.repeat(1024 * 1024);
let seen = '';
process.stdin.on('data', (data) => {
  seen += data;
  if (!seen.includes('\n')) return;
  process.stdin.pause();
  write('{"jsonrpc":"2.0","id":0,"result":{"text":"');
  for (let sent = 0; sent < total; sent += chunk.length) write(chunk);
  write('"}}\n{"jsonrpc":"2.0","method":"notifications/after"}\n');
  process.exit(0);
});

function write(text) {
  let buffer = Buffer.from(text);
  while (buffer.length > 0) {
    try {
      buffer = buffer.subarray(writeSync(1, buffer));
    } catch (e) {
      // A full non-blocking pipe: try again. Anything else (EPIPE: the reader is gone) ends it.
      if (e.code !== 'EAGAIN') process.exit(0);
    }
  }
}
