// A conforming SSE server (base.mjs, run as a child behind this proxy) that is slow to read one
// POST: the body of the SLOW_READ_PING-th POST of a ping (default 5: one of a burst, past any
// ping of the opening) is read only SLOW_READ_MS (default 2500) ms after it arrived, past the
// test suite's HTTP budget. A client that gave up on that POST meanwhile and cut it finds the
// message dropped unread, as a server whose read fails on a closed connection drops it. An
// audit server (OPT=slowread) did this; a loaded machine does it with no delay added.
//
//   node slow-read-one-ping.mjs --transport sse --port N   (prints "listening on <url>")
import { spawn } from 'node:child_process';
import http from 'node:http';
import { fileURLToPath } from 'node:url';

const argv = process.argv.slice(2);
const port = Number(argv[argv.indexOf('--port') + 1] ?? 0);
const slowPing = Number(process.env.SLOW_READ_PING ?? 5);
const slowMs = Number(process.env.SLOW_READ_MS ?? 2500);

const child = spawn(
  process.execPath,
  [fileURLToPath(new URL('./conforming.mjs', import.meta.url)), '--transport', 'sse', '--port', '0'],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);
child.on('exit', (code) => process.exit(code ?? 0));
process.on('SIGTERM', () => {
  child.kill('SIGTERM');
  process.exit(0);
});

const inner = await new Promise((resolve) => {
  let out = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (c) => {
    out += c;
    const m = /listening on http:\/\/127\.0\.0\.1:(\d+)\//.exec(out);
    if (m) resolve(Number(m[1]));
  });
});

let pings = 0;

function forward(req, res, body) {
  const up = http.request(
    { host: '127.0.0.1', port: inner, method: req.method, path: req.url, headers: req.headers },
    (upRes) => {
      res.writeHead(upRes.statusCode ?? 502, upRes.headers);
      // Flushed as it comes: an event stream stays open.
      upRes.on('data', (c) => res.write(c));
      upRes.on('end', () => res.end());
    },
  );
  up.on('error', () => res.destroy());
  res.on('close', () => up.destroy());
  up.end(body);
}

const server = http.createServer((req, res) => {
  if (req.method !== 'POST') {
    forward(req, res, undefined);
    return;
  }
  let cut = false;
  res.on('close', () => {
    if (!res.writableEnded) cut = true;
  });
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    const isPing = /"method":"ping"/.test(body.toString('utf8'));
    if (isPing && ++pings === slowPing) {
      process.stderr.write(`slow-read-one-ping: reading ping POST ${pings} ${slowMs} ms late\n`);
      setTimeout(() => {
        if (!cut) forward(req, res, body);
      }, slowMs);
      return;
    }
    forward(req, res, body);
  });
});
server.listen(port, '127.0.0.1', () => {
  process.stdout.write(`listening on http://127.0.0.1:${server.address().port}/sse\n`);
});
