// Hostile tool servers for wirecheck's own tests: each one breaks the harness's reading in
// one way (a line or frame that never ends, nesting too deep to walk, a flood of output).
// `serve(onRequest)` speaks enough of stdio or SSE + POST to get a request from the
// harness, then hands it to `onRequest(message, out)`; `out.write` respects back-pressure,
// so a target that writes forever costs itself no memory. With `--count-file PATH` the
// bytes written so far are kept in PATH (the tests read how much the harness was sent).
// With `--after-initialize` a session first answers `initialize` as a tool server would and
// turns hostile at the next message (wirecheck's test tool-server needs an initialized session
// before any check: a server hostile from the start is unavailable, exit 2).
// Over Streamable HTTP (`--transport http`, endpoint /mcp) `out` is the answer to one POST:
// an event stream, or with `--answer json` an application/json body; a session is its
// Mcp-Session-Id, and every request is hostile once its session answered initialize. There
// `onStart(out)` runs for each GET stream a session opens (with --after-initialize only).
//
//   node <file>.mjs --transport stdio|sse|http [--answer sse|json] [--port N] [--count-file PATH]
//     [--after-initialize]
import { writeFileSync } from 'node:fs';
import http from 'node:http';

const argv = process.argv.slice(2);
export function opt(name, fallback) {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : fallback;
}

const countFile = opt('--count-file');
let written = 0;
let lastSaved = 0;
function counted(bytes) {
  written += bytes;
  if (countFile !== undefined && written - lastSaved >= 8 * 1024 * 1024) {
    lastSaved = written;
    writeFileSync(countFile, String(written));
  }
}

/** A writer over a Node stream: `write` resolves once the stream can take more; false once it is gone. */
function writerOf(stream) {
  let gone = false;
  stream.on('close', () => {
    gone = true;
  });
  stream.on('error', () => {
    gone = true;
  });
  return {
    get gone() {
      return gone;
    },
    async write(text) {
      if (gone) return false;
      counted(Buffer.byteLength(text));
      if (!stream.write(text)) {
        await new Promise((resolve) => {
          const done = () => {
            stream.off('drain', done);
            stream.off('close', done);
            resolve();
          };
          stream.on('drain', done);
          stream.on('close', done);
        });
      }
      return !gone;
    },
  };
}

/** Write `piece` again and again until the reader goes away. */
export async function forever(out, piece) {
  while (await out.write(piece)) {}
}

/**
 * Serve the transport named by --transport. `onRequest(message, out)`: over stdio `out`
 * is stdout (write whole lines); over SSE it is the session's stream (write frames).
 * `onStart(out)` runs once when the session opens (stdio: at start; SSE: after the
 * endpoint event), with `--after-initialize` at the first message after initialize.
 */
export function serve({ onRequest = () => {}, onStart = () => {} }) {
  const transport = opt('--transport', 'stdio');
  const afterInitialize = argv.includes('--after-initialize');
  /** Sessions that answered initialize (--after-initialize), and those turned hostile. */
  const initialized = new WeakSet();
  const hostile = new WeakSet();
  const turnHostile = (out) => {
    if (hostile.has(out)) return;
    hostile.add(out);
    void onStart(out);
  };
  const start = (out) => {
    if (!afterInitialize) turnHostile(out);
  };
  const handle = (request, out) => {
    if (afterInitialize && !initialized.has(out)) {
      if (request.method !== 'initialize') return;
      initialized.add(out);
      void out.write(message(JSON.stringify({ jsonrpc: '2.0', id: request.id, result: INITIALIZE_RESULT })));
      return;
    }
    turnHostile(out);
    if (afterInitialize && request.id === undefined) return;
    void onRequest(request, out);
  };
  if (transport === 'stdio') {
    const out = writerOf(process.stdout);
    start(out);
    let buffered = '';
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (chunk) => {
      buffered += chunk;
      let nl = buffered.indexOf('\n');
      while (nl >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        try {
          handle(JSON.parse(line), out);
        } catch {
          // not JSON: ignored
        }
        nl = buffered.indexOf('\n');
      }
    });
    process.stdin.on('end', () => process.exit(0));
    return;
  }
  if (transport === 'http') {
    serveStreamableHttp({ onRequest, onStart, afterInitialize });
    return;
  }
  const sessions = new Map();
  let next = 0;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method === 'GET' && url.pathname === '/sse') {
      const id = `s${++next}`;
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const out = writerOf(res);
      sessions.set(id, out);
      res.on('close', () => sessions.delete(id));
      void out.write(`event: endpoint\ndata: /messages?sessionId=${id}\n\n`).then(() => start(out));
      return;
    }
    if (req.method === 'POST' && url.pathname === '/messages') {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        const out = sessions.get(url.searchParams.get('sessionId') ?? '');
        if (out === undefined) {
          res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"no such session"}');
          return;
        }
        res.writeHead(202).end('Accepted');
        try {
          handle(JSON.parse(body), out);
        } catch {
          // not JSON: ignored
        }
      });
      return;
    }
    res.writeHead(404).end();
  });
  server.listen(Number(opt('--port', '0')), '127.0.0.1', () => {
    process.stderr.write(`listening on http://127.0.0.1:${server.address().port}/sse\n`);
  });
}

/**
 * Streamable HTTP: each request's answer is `out`, a stream of its own. With
 * --after-initialize, initialize is answered as a server would (JSON, with a session id) and
 * every later request of that session is handed over; without it, initialize is hostile too.
 */
function serveStreamableHttp({ onRequest, onStart, afterInitialize }) {
  const json = opt('--answer', 'sse') === 'json';
  const sessions = new Set();
  let next = 0;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/mcp') return void res.writeHead(404).end();
    if (req.method === 'DELETE') return void res.writeHead(200).end();
    if (req.method === 'GET' && sessions.has(req.headers['mcp-session-id'])) {
      // A session's own stream (GET): `onStart` writes on it.
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      void onStart(writerOf(res));
      return;
    }
    if (req.method !== 'POST') return void res.writeHead(405, { allow: 'POST, DELETE' }).end();
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', async () => {
      let request;
      try {
        request = JSON.parse(body);
      } catch {
        return void res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"not JSON"}');
      }
      if (afterInitialize && request.method === 'initialize') {
        const id = `s${++next}`;
        sessions.add(id);
        const version = request.params?.protocolVersion ?? '2025-03-26';
        const result = { ...INITIALIZE_RESULT, protocolVersion: version };
        res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': id });
        return void res.end(JSON.stringify({ jsonrpc: '2.0', id: request.id, result }));
      }
      if (afterInitialize && !sessions.has(req.headers['mcp-session-id'])) {
        return void res
          .writeHead(404, { 'content-type': 'application/json' })
          .end('{"error":"no such session"}');
      }
      if (request.id === undefined) return void res.writeHead(202).end();
      res.writeHead(200, { 'content-type': json ? 'application/json' : 'text/event-stream' });
      await onRequest(request, writerOf(res));
      res.end();
    });
  });
  server.listen(Number(opt('--port', '0')), '127.0.0.1', () => {
    process.stderr.write(`listening on http://127.0.0.1:${server.address().port}/mcp\n`);
  });
}

const INITIALIZE_RESULT = {
  protocolVersion: '2024-11-05',
  capabilities: { tools: {} },
  serverInfo: { name: 'wirecheck-hostile-target', version: '1.0.0' },
};

/** How an answer is written: lines (stdio), a JSON body (Streamable HTTP --answer json), or SSE frames. */
export function framing() {
  const transport = opt('--transport', 'stdio');
  if (transport === 'stdio') return 'line';
  return transport === 'http' && opt('--answer', 'sse') === 'json' ? 'json' : 'sse';
}

/** `event: message` frame (SSE), a line (stdio) or a body (JSON) holding `json`. */
export function message(json) {
  const how = framing();
  if (how === 'line') return `${json}\n`;
  return how === 'json' ? json : `event: message\ndata: ${json}\n\n`;
}
