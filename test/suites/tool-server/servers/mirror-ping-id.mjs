// A conforming stdio server (base.mjs, run as a child) that, once initialized, meets each ping
// of the client by first pinging the client itself with the same numeric id and waiting for
// that answer (up to 2 s), then answering. Legal: each side numbers its own requests (MCP
// 2024-11-05: an id must not have been used "by the requestor"), so the server's ping is the
// client's ping to the byte. An audit server (OPT=mirrorping) did this; a server pinging for
// keep-alive from id 1 meets the client's ids the same way.
//
//   node mirror-ping-id.mjs --transport stdio
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const child = spawn(
  process.execPath,
  [fileURLToPath(new URL('./conforming.mjs', import.meta.url)), '--transport', 'stdio'],
  { stdio: ['pipe', 'inherit', 'inherit'] },
);
child.on('exit', (code) => process.exit(code ?? 0));
process.on('SIGTERM', () => child.kill('SIGTERM'));

let initialized = false;
/** Ids of the server's own pings, each with what to do when its answer comes. */
const mine = new Map();

async function take(line) {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    child.stdin.write(`${line}\n`);
    return;
  }
  const isObject = typeof msg === 'object' && msg !== null && !Array.isArray(msg);
  if (isObject && msg.method === 'notifications/initialized') initialized = true;
  if (isObject && msg.method === 'ping' && initialized && typeof msg.id === 'number') {
    const id = msg.id;
    await new Promise((resolve) => {
      const timer = setTimeout(() => {
        mine.delete(id);
        process.stderr.write(`mirror-ping-id: no answer to my ping ${id}\n`);
        resolve();
      }, 2000);
      mine.set(id, () => {
        clearTimeout(timer);
        mine.delete(id);
        resolve();
      });
      // Keys in jsonrpc, id, method order, as wirecheck writes its own ping.
      process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' })}\n`);
    });
  }
  child.stdin.write(`${line}\n`);
}

function answerTo(line) {
  try {
    const msg = JSON.parse(line);
    if (typeof msg !== 'object' || msg === null || Array.isArray(msg) || 'method' in msg) return undefined;
    return mine.get(msg.id);
  } catch {
    return undefined;
  }
}

// In order: a line waits for the ping before it, as the audit server's single reader did.
let queue = Promise.resolve();
let buffer = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buffer += chunk;
  for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
    const line = buffer.slice(0, nl).replace(/\r$/, '');
    buffer = buffer.slice(nl + 1);
    if (line.trim() === '') continue;
    // An answer to the server's own ping is taken at once: the line before it waits for it.
    const answer = answerTo(line);
    if (answer !== undefined) {
      answer();
      continue;
    }
    queue = queue.then(() => take(line));
  }
});
process.stdin.on('end', () => {
  queue = queue.then(() => child.stdin.end());
});
