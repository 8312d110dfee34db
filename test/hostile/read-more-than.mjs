// Reads a hostile source through one of wirecheck's readers until more than --bytes bytes
// went through it (or --seconds passed), then prints one JSON line: the bytes read, what
// the reader reported, and the process's peak resident memory (maxRSS, KiB).
//
//   node test/hostile/read-more-than.mjs --reader stdio-channel --command CMD --bytes N
//   node test/hostile/read-more-than.mjs --reader sse-line|sse-frame|jsonl-line --bytes N
import { createLineDecoder } from '../../dist/protocol/jsonrpc/index.js';
import { createFrameDecoder } from '../../dist/protocol/sse/index.js';
import { openStdioChannel } from '../../dist/suites/tool-server/stdio-channel.js';

const argv = process.argv.slice(2);
const opt = (name) => argv[argv.indexOf(name) + 1];
const reader = opt('--reader');
const wanted = Number(opt('--bytes'));
const seconds = Number(argv.includes('--seconds') ? opt('--seconds') : '100');

function done(result) {
  process.stdout.write(`${JSON.stringify({ ...result, maxRssKiB: process.resourceUsage().maxRSS })}\n`);
}

if (reader === 'stdio-channel') {
  const channel = openStdioChannel(opt('--command'), 'flood');
  const deadline = Date.now() + seconds * 1000;
  const timer = setInterval(async () => {
    const d = channel.diagnosis();
    if (d.bytes <= wanted && Date.now() < deadline && channel.gone() === undefined) return;
    clearInterval(timer);
    await channel.close();
    done({
      bytes: d.bytes,
      units: d.units,
      kept: channel.peer.items.length,
      summary: d.summary.slice(0, 300),
    });
  }, 100);
} else {
  // An endless line, an endless frame of 1 KiB data lines, or an endless stdio line, fed in 64 KiB chunks.
  const errors = [];
  const piece =
    reader === 'sse-frame'
      ? Buffer.from(`data: ${'x'.repeat(1017)}\n`.repeat(64))
      : Buffer.alloc(64 * 1024, 0x78);
  const decoder =
    reader === 'jsonl-line'
      ? createLineDecoder({ onLine: (l) => errors.push(l.ok ? 'ok' : l.error) })
      : createFrameDecoder({ onFrame: () => errors.push('frame'), onLimit: (e) => errors.push(e.message) });
  decoder.feed(reader === 'sse-frame' ? 'event: message\n' : reader === 'sse-line' ? 'data: ' : '[');
  let bytes = 0;
  while (bytes <= wanted) {
    decoder.feed(piece);
    bytes += piece.length;
  }
  done({ bytes, reported: errors.map((e) => e.slice(0, 200)) });
}
