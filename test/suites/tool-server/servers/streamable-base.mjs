// A small Streamable HTTP MCP tool server (plain node:http, no wirecheck code) that conforms,
// and the flaws the broken-server tests switch on, one per rule. Usage:
//   node streamable-<name>.mjs --port N
// Flaws (main({...})): getReset (a GET of a session has its connection reset: neither a stream nor 405),
// sessionErrorIn200 (a request without the session id is refused with 200 and a JSON-RPC error),
// getUnflushed (the GET stream's headers go out with its first event, as Node
// sends them unless flushed: conforming too), notification200, refuseUnknownInput (refuses a notification other than
// notifications/initialized, and a response, with 400: conforming too), initialized200 (with
// refuseUnknownInput: notifications/initialized answered 200 with a body), ignoreSessions, unknown200, broadcast ('batch': each copy a
// batch of one), badSessionId,
// anyOrigin, getJson, streamOpen, textPlain, json (answers JSON bodies: conforming too);
// eventIds (resumable: a priming event and an id `<stream>-<seq>` on every event of an answer
// stream, GET + Last-Event-ID replays that stream after the id: conforming too) and its flaws
// resumeOtherStream, resumeInclusive, resumeNothing, sameIds (ids restart on every stream; no resumption),
// pollAnswers (with eventIds, MCP 2025-11-25 polling: an answer stream ends after its priming event and a
// retry, its response replayed to a GET with Last-Event-ID: conforming under 2025-11-25; 'no-retry' leaves
// the retry field out), idPrefix (put before every event id: '中' makes ids outside latin1, which a
// client sends in Last-Event-ID as their UTF-8 bytes: conforming too),
// noteEvents (that many notifications with ids before each reply: conforming too) and repeatLastNote (the
// last of them has one id on every stream);
// ignoreVersionHeader (serves a request whose MCP-Protocol-Version is no revision, where a conforming
// server answers 400); newestAnswer (each reply goes, 10 ms late, into the newest answer stream still
// open, so the replies of concurrent POSTs are swapped, across sessions too);
// resumeLateMs (replays that many ms after the GET's headers and keeps the stream open, as a loaded
// server may: conforming too); only0618 (supports MCP 2025-06-18 only: answers every initialize with it,
// as MCP asks of a server that does not support the requested version, and refuses batches, which
// 2025-06-18 removed: conforming too); noBatch (refuses batches with that 400 while it answers
// 2025-03-26, whose servers MUST take them, as tmcp 1.20.0 does); maxSessions (at most that many sessions at once, a new one
// past them refused 503 until one is deleted, as wirecheck's own server does: conforming too);
// capacityStatus (the status of that refusal instead of 503); capacityFirst (the cap is checked
// before the Origin, so a server at capacity answers even a foreign Origin so: conforming too);
// busyOnce (the first POST carrying an Origin is answered 503 with Retry-After: 1, as a server
// briefly at capacity: conforming too); answerDelayMs (with json: each request's JSON body, and
// so the response's headers, written that many ms late, as a server whose answers take time
// writes them: conforming too); burstInitializeMs (an initialize that comes while 3 others are
// being answered is answered that many ms late, as a bridge that starts a process for each
// session slows down when many are opened at once: conforming too); burstReplyMs (a request other
// than initialize that comes while 3 others are being answered gets its event stream at once and
// its reply on it that many ms late, as a bridge that starts a process for each request slows
// down under many at once: conforming too); burstReplyLost (that reply is never written, the
// stream left open: a lost reply); silentAfterInitialize (no request but initialize is ever
// answered, its event stream left open: a server that stopped answering); versionHeaderRequired (with
// only0618: a request of a session without MCP-Protocol-Version is 2025-03-26, which MCP 2025-06-18 tells a
// server to assume and this one does not speak, so it is answered 400: conforming too).
import { randomUUID } from 'node:crypto';
import http from 'node:http';

const TOOLS = [
  {
    name: 'echo',
    description: 'Echo the text.',
    inputSchema: {
      type: 'object',
      properties: { text: { type: 'string', description: 'What to echo.' } },
      required: ['text'],
    },
  },
];

function answer(message, flaws = {}) {
  const { id, method, params } = message;
  switch (method) {
    case 'initialize':
      return {
        jsonrpc: '2.0',
        id,
        result: {
          protocolVersion: flaws.only0618
            ? '2025-06-18'
            : ['2025-06-18', '2025-11-25'].includes(params?.protocolVersion)
              ? params.protocolVersion
              : '2025-03-26',
          capabilities: { tools: {} },
          serverInfo: { name: 'streamable-test-server', version: '1' },
        },
      };
    case 'ping':
      return { jsonrpc: '2.0', id, result: {} };
    case 'tools/list':
      return { jsonrpc: '2.0', id, result: { tools: TOOLS } };
    case 'tools/call': {
      if (params?.name !== 'echo')
        return { jsonrpc: '2.0', id, error: { code: -32602, message: `Unknown tool: ${params?.name}` } };
      const text = params?.arguments?.text;
      if (typeof text !== 'string')
        return { jsonrpc: '2.0', id, error: { code: -32602, message: 'text must be a string' } };
      return { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }] } };
    }
    default:
      return { jsonrpc: '2.0', id, error: { code: -32601, message: `Method not found: ${method}` } };
  }
}

const REVISIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'];

/**
 * Count a request among those of `burst` being answered now, until `done` or its response
 * closes; `late` when 3 others were being answered already.
 */
function joinBurst(burst, res) {
  const late = burst.count >= 3;
  burst.count += 1;
  let counted = true;
  const done = () => {
    if (counted) burst.count -= 1;
    counted = false;
  };
  res.on('close', done);
  return { late, done };
}

export function main(flaws = {}) {
  /** newestAnswer: answer streams waiting for a reply, oldest first. */
  const waiting = [];
  const port = Number(process.argv[process.argv.indexOf('--port') + 1] ?? 0);
  const sessions = new Map(); // id -> { gets: Set<res> }
  const ended = new Set();

  const json = (res, status, body, headers = {}) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(text);
  };
  const refuse = (res, status, message) =>
    json(res, status, { jsonrpc: '2.0', id: null, error: { code: -32000, message } });

  // GET + Last-Event-ID `<stream>-<seq>`: the events of that stream after seq, then the stream ends.
  const resume = (s, res, last) => {
    const [no, seq] = String(last)
      .slice((flaws.idPrefix ?? '').length)
      .split('-')
      .map(Number);
    const stream = s.streams[no - 1];
    if (flaws.sameIds || stream === undefined || !(seq >= 1 && seq <= stream.length))
      return refuse(res, 400, `cannot resume after ${last}`);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    if (flaws.resumeLateMs !== undefined) {
      res.flushHeaders();
      const timer = setTimeout(() => res.write(stream.slice(seq).join('')), flaws.resumeLateMs);
      res.on('close', () => clearTimeout(timer));
      return;
    }
    if (!flaws.resumeNothing) res.write(stream.slice(flaws.resumeInclusive ? seq - 1 : seq).join(''));
    if (flaws.resumeOtherStream) {
      const other = s.streams[no === s.streams.length ? no - 2 : s.streams.length - 1];
      if (other !== undefined) res.write(other.slice(1).join(''));
    }
    res.end();
  };

  // A JSON-RPC batch, which MCP 2025-03-26 asks every server to receive: a response for each
  // request in it, in one JSON array (json) or as events of one answer stream; 202 when it
  // holds none (notifications and responses only).
  const answerBatch = (res, batch) => {
    if (batch.length === 0) {
      return json(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'empty batch' } });
    }
    const replies = batch
      .filter((m) => typeof m?.method === 'string' && 'id' in m)
      .map((m) => answer(m, flaws));
    if (replies.length === 0) return res.writeHead(202).end();
    if (flaws.json && flaws.answerDelayMs !== undefined) {
      const timer = setTimeout(() => json(res, 200, replies), flaws.answerDelayMs);
      res.on('close', () => clearTimeout(timer));
      return;
    }
    if (flaws.json) return json(res, 200, replies);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    for (const reply of replies) res.write(`event: message\ndata: ${JSON.stringify(reply)}\n\n`);
    res.end();
  };

  let busyDone = false;
  /** burstInitializeMs: initialize requests being answered now. */
  const initializing = { count: 0 };
  /** burstReplyMs, burstReplyLost: other requests being answered now. */
  const answering = { count: 0 };
  const server = http.createServer((req, res) => {
    const origin = req.headers.origin;
    if (flaws.busyOnce && origin !== undefined && !busyDone) {
      busyDone = true;
      return json(
        res,
        503,
        { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Service Unavailable: busy' } },
        { 'retry-after': '1' },
      );
    }
    const badOrigin =
      !flaws.anyOrigin &&
      origin !== undefined &&
      !/^https?:\/\/(localhost|127\.0\.0\.1)(:\d+)?$/.test(origin);
    if (badOrigin && !(flaws.capacityFirst && req.method === 'POST')) {
      return refuse(res, 403, 'Forbidden origin');
    }
    if (!req.url.startsWith('/mcp')) return refuse(res, 404, 'not found');
    const sid = req.headers['mcp-session-id'];
    if (
      flaws.versionHeaderRequired &&
      sid !== undefined &&
      req.headers['mcp-protocol-version'] === undefined
    ) {
      return refuse(
        res,
        400,
        'no MCP-Protocol-Version: 2025-03-26 assumed, which this server does not support',
      );
    }
    const known = (id) =>
      sessions.get(id) ?? (flaws.unknown200 && !ended.has(id) ? newSession(id) : undefined);
    const newSession = (id) => {
      const s = { gets: new Set(), streams: [] };
      sessions.set(id, s);
      return s;
    };
    if (req.method === 'GET') {
      if (flaws.getJson) return json(res, 200, { ok: true });
      if (sid === undefined) return refuse(res, 400, 'session id required');
      if (flaws.getReset) return req.socket.destroy();
      const s = known(sid);
      if (s === undefined) return refuse(res, 404, 'no such session');
      // Node reads a header's bytes as latin1: an id's UTF-8 bytes, as EventSource sends them, read back.
      const header = req.headers['last-event-id'];
      const last = header === undefined ? undefined : Buffer.from(header, 'latin1').toString('utf8');
      if (flaws.eventIds && last !== undefined) return resume(s, res, last);
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      if (!flaws.getUnflushed) res.flushHeaders();
      s.gets.add(res);
      res.on('close', () => s.gets.delete(res));
      return;
    }
    if (req.method === 'DELETE') {
      if (sid === undefined) return refuse(res, 400, 'session id required');
      if (!flaws.ignoreSessions) {
        if (!sessions.has(sid)) return refuse(res, 404, 'no such session');
        for (const g of sessions.get(sid).gets) g.end();
        sessions.delete(sid);
        ended.add(sid);
      }
      res.writeHead(200).end();
      return;
    }
    if (req.method !== 'POST') return refuse(res, 405, 'method not allowed');
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      let message;
      try {
        message = JSON.parse(body);
      } catch {
        return json(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
      }
      if ((flaws.only0618 || flaws.noBatch) && Array.isArray(message)) {
        return json(res, 400, {
          jsonrpc: '2.0',
          id: null,
          error: { code: -32600, message: 'Invalid Request: batches are not supported (MCP 2025-06-18)' },
        });
      }
      const headers = {};
      if (
        message?.method === 'initialize' &&
        sid === undefined &&
        sessions.size >= (flaws.maxSessions ?? Infinity)
      ) {
        // Bounded, as wirecheck's own Streamable HTTP server: a session past the cap gets 503.
        return refuse(
          res,
          flaws.capacityStatus ?? 503,
          `Service Unavailable: ${sessions.size} sessions are open`,
        );
      }
      if (badOrigin) return refuse(res, 403, 'Forbidden origin');
      if (message?.method === 'initialize' && sid === undefined) {
        const id = flaws.badSessionId ? `wirecheck session ${sessions.size + 1}` : randomUUID();
        newSession(id);
        headers['mcp-session-id'] = id;
      } else if (!flaws.ignoreSessions) {
        if (sid === undefined && flaws.sessionErrorIn200) {
          return json(res, 200, {
            jsonrpc: '2.0',
            id: message?.id ?? null,
            error: { code: -32600, message: 'session id required' },
          });
        }
        if (sid === undefined) return refuse(res, 400, 'session id required');
        if (known(sid) === undefined) return refuse(res, 404, 'no such session');
      }
      const version = req.headers['mcp-protocol-version'];
      if (!flaws.ignoreVersionHeader && version !== undefined && !REVISIONS.includes(version)) {
        return refuse(res, 400, `unsupported MCP-Protocol-Version ${version}`);
      }
      if (Array.isArray(message)) return answerBatch(res, message);
      const isRequest = typeof message?.method === 'string' && 'id' in message;
      if (!isRequest) {
        const initialized = message?.method === 'notifications/initialized';
        if (flaws.refuseUnknownInput && !initialized) return refuse(res, 400, 'not accepted');
        if (flaws.notification200 || (flaws.initialized200 && initialized))
          return json(res, 200, { ok: true });
        res.writeHead(202).end();
        return;
      }
      if (typeof message.jsonrpc !== 'string') {
        return json(res, 200, {
          jsonrpc: '2.0',
          id: message.id,
          error: { code: -32600, message: 'Invalid Request' },
        });
      }
      const reply = answer(message, flaws);
      if (flaws.broadcast) {
        const copy = JSON.stringify(flaws.broadcast === 'batch' ? [reply] : reply);
        for (const s of sessions.values())
          for (const g of s.gets) g.write(`event: message\ndata: ${copy}\n\n`);
      }
      if (flaws.textPlain && message.method === 'tools/list') {
        res.writeHead(200, { 'content-type': 'text/plain', ...headers });
        res.end(JSON.stringify(reply));
        return;
      }
      if (flaws.json && flaws.answerDelayMs !== undefined) {
        const timer = setTimeout(() => json(res, 200, reply, headers), flaws.answerDelayMs);
        res.on('close', () => clearTimeout(timer));
        return;
      }
      if (flaws.json) return json(res, 200, reply, headers);
      if (flaws.newestAnswer && message.method !== 'initialize') {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        waiting.push(res);
        setTimeout(() => {
          const newest = waiting.pop();
          newest.write(`event: message\ndata: ${JSON.stringify(reply)}\n\n`);
          newest.end();
        }, 10);
        return;
      }
      if (flaws.burstInitializeMs !== undefined && message.method === 'initialize') {
        const { late, done } = joinBurst(initializing, res);
        const timer = setTimeout(
          () => {
            done();
            res.writeHead(200, { 'content-type': 'text/event-stream', ...headers });
            res.end(`event: message\ndata: ${JSON.stringify(reply)}\n\n`);
          },
          late ? flaws.burstInitializeMs : 50,
        );
        res.on('close', () => clearTimeout(timer));
        return;
      }
      const burstFlaw =
        flaws.burstReplyMs !== undefined || flaws.burstReplyLost || flaws.silentAfterInitialize;
      if (burstFlaw && message.method !== 'initialize') {
        const { late, done } = joinBurst(answering, res);
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...headers });
        res.flushHeaders();
        if ((late && flaws.burstReplyLost) || flaws.silentAfterInitialize) return;
        const timer = setTimeout(
          () => {
            done();
            res.end(`event: message\ndata: ${JSON.stringify(reply)}\n\n`);
          },
          late ? flaws.burstReplyMs : 50,
        );
        res.on('close', () => clearTimeout(timer));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...headers });
      if (flaws.eventIds) {
        const s = sessions.get(sid ?? headers['mcp-session-id']);
        const stream = [];
        s?.streams.push(stream);
        const no = s === undefined ? 0 : s.streams.length;
        const idOf = (seq) => (flaws.sameIds ? `${seq}` : `${flaws.idPrefix ?? ''}${no}-${seq}`);
        // noteEvents: that many log notifications between the priming event and the reply, each
        // with its id (a chatty server: conforming too); repeatLastNote: the last of them has the
        // same id on every stream.
        const notes = Array.from({ length: flaws.noteEvents ?? 0 }, (_, i) => {
          const last = i === flaws.noteEvents - 1;
          const note = {
            jsonrpc: '2.0',
            method: 'notifications/message',
            params: { level: 'info', data: `step ${i}` },
          };
          return `id: ${last && flaws.repeatLastNote ? 'last-note' : idOf(i + 2)}\nevent: message\ndata: ${JSON.stringify(note)}\n\n`;
        });
        const events = [
          `id: ${idOf(1)}\ndata: \n\n`,
          ...notes,
          `id: ${idOf(notes.length + 2)}\nevent: message\ndata: ${JSON.stringify(reply)}\n\n`,
        ];
        stream.push(...events);
        // pollAnswers (MCP 2025-11-25, polling: conforming): the priming event and a retry, then the
        // stream ends; the rest, the response included, comes to a GET with Last-Event-ID.
        if (flaws.pollAnswers) {
          res.end(`${flaws.pollAnswers === 'no-retry' ? '' : 'retry: 50\n'}${events[0]}`);
          return;
        }
        res.write(events.join(''));
        if (!flaws.streamOpen) res.end();
        return;
      }
      res.write(`event: message\ndata: ${JSON.stringify(reply)}\n\n`);
      if (!flaws.streamOpen) res.end();
    });
  });
  server.listen(port, '127.0.0.1', () => {
    process.stderr.write(`streamable test server on http://127.0.0.1:${server.address().port}/mcp\n`);
  });
  const stop = () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
