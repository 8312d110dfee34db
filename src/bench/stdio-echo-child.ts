import { echoReply } from './echo-answer.js';

// The stdio baseline: a child process that answers each JSON-RPC line on stdin with one
// line on stdout (an echo), and does nothing else; it exits when stdin ends.
let buffered = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk: string) => {
  buffered += chunk;
  let out = '';
  let nl = buffered.indexOf('\n');
  while (nl >= 0) {
    const line = buffered.slice(0, nl);
    buffered = buffered.slice(nl + 1);
    if (line.trim() !== '') {
      const reply = echoReply(JSON.parse(line));
      if (reply !== undefined) out += `${reply}\n`;
    }
    nl = buffered.indexOf('\n');
  }
  if (out !== '') process.stdout.write(out);
});
process.stdin.on('end', () => process.exit(0));
