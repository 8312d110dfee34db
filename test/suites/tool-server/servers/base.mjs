// A small tool server for the suite's own tests: MCP 2024-11-05 over stdio or SSE + POST
// (raw node:http), with switches that each break one rule. `main({})` conforms; every
// other file in this folder is `main({<flaw>: true})`.
//
//   node <file>.mjs --transport stdio|sse [--port N]   (sse prints "listening on <url>")
//
// Keep-alive comments go out every WIRECHECK_TEST_KEEPALIVE_MS (default 15000) ms.
import { randomUUID } from 'node:crypto';
import { appendFileSync, readFileSync } from 'node:fs';
import http from 'node:http';

/** Whether a line is a tools/call of a tool this server lists. */
function listedToolCall(line) {
  try {
    const msg = JSON.parse(line);
    return msg?.method === 'tools/call' && TOOLS.some((t) => t.name === msg.params?.name);
  } catch {
    return false;
  }
}

/** Whether a text is one JSON-RPC notification (a method, no id). */
function isNotification(text) {
  try {
    const msg = JSON.parse(text);
    return typeof msg?.method === 'string' && !('id' in msg);
  } catch {
    return false;
  }
}

/** Whether a line is a call of add with a negative a (slowOnNegative answers it late). */
function negativeAddCall(line) {
  try {
    const msg = JSON.parse(line);
    return msg?.method === 'tools/call' && msg.params?.name === 'add' && msg.params.arguments?.a < 0;
  } catch {
    return false;
  }
}

export const TOOLS = [
  {
    name: 'echo',
    description: 'Returns its message.',
    inputSchema: {
      type: 'object',
      properties: { message: { type: 'string', description: 'text to send back' } },
      required: ['message'],
    },
  },
  {
    name: 'add',
    description: 'Adds two numbers.',
    inputSchema: {
      type: 'object',
      properties: {
        a: { type: 'number', description: 'first addend' },
        b: { type: 'number', description: 'second addend', default: 0 },
      },
      required: ['a'],
    },
  },
  {
    name: 'diagnostics',
    description: 'Server status and process information.',
    inputSchema: {
      type: 'object',
      properties: { verbose: { type: 'boolean', description: 'more detail', default: false } },
    },
  },
];

/** lookupOnly: the one tool, read-only, whose id must be digits (made-up ids are refused). */
// boundedArguments: valid schemas that need long values (a transaction hash, an embedding),
// and one no value fits (minLength above maxLength).
const HASH_LOOKUP = {
  name: 'hash_lookup',
  description: 'Looks a transaction up by its hash, near an embedding.',
  annotations: { readOnlyHint: true },
  inputSchema: {
    type: 'object',
    properties: {
      hash: { type: 'string', description: 'hash', minLength: 66, maxLength: 66 },
      vector: { type: 'array', description: 'v', items: { type: 'number' }, minItems: 768, maxItems: 768 },
    },
    required: ['hash', 'vector'],
  },
};
const CONTRADICTORY = {
  name: 'contradictory',
  description: 'No arguments fit.',
  annotations: { readOnlyHint: true },
  inputSchema: {
    type: 'object',
    properties: { code: { type: 'string', description: 'c', minLength: 10, maxLength: 5 } },
    required: ['code'],
  },
};

const LOOKUP = {
  name: 'lookup',
  description: 'Looks up a record by its number.',
  inputSchema: {
    type: 'object',
    properties: { id: { type: 'string', pattern: '^[0-9]+$', description: 'record number' } },
    required: ['id'],
  },
  annotations: { readOnlyHint: true },
};

/** slowTool (SSE): waits `ms`, then answers; its calls count in the diagnostics' in_flight_calls
 * and are aborted when their session's stream closes, as the reference server's `slow` tool
 * (keepSlowCalls, the flaw: they run on after the close). */
const SLOW = {
  name: 'slow',
  description: 'Waits the given number of milliseconds, then answers.',
  inputSchema: {
    type: 'object',
    properties: { ms: { type: 'integer', description: 'how long to wait', default: 1000 } },
  },
};
/** Calls of the slow tool in flight, over all sessions. */
let inFlight = 0;

/** A tools/call of the slow tool: its id and wait, or undefined. */
function slowToolCall(body) {
  try {
    const msg = JSON.parse(body);
    if (msg?.method !== 'tools/call' || msg.params?.name !== 'slow') return undefined;
    const ms = Number(msg.params.arguments?.ms ?? 1000);
    return { id: msg.id, ms: Math.min(Math.max(Number.isFinite(ms) ? ms : 0, 0), 30_000) };
  } catch {
    return undefined;
  }
}

function text(t, isError = false) {
  return isError
    ? { content: [{ type: 'text', text: t }], isError: true }
    : { content: [{ type: 'text', text: t }] };
}

/** newerRevisionAlways: a revision later than any wirecheck knows (a date, as MCP revisions are), or the string given. */
const NEWER_REVISION = '2026-07-28';

let stalled = false;
/** notEventStreamAfterInitialize: set once any session was initialized. */
let anyInitialized = false;
/** hangOnNegative: once set, nothing more is answered (the process stays alive). */
let hung = false;
/** echoSwapped: the message of the last echo call, from any session. */
let lastEcho;

export function main(flaws = {}) {
  const argv = process.argv.slice(2);
  const opt = (name, fallback) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : fallback;
  };
  const transport = opt('--transport', 'stdio');
  const keepAliveMs = Number(process.env.WIRECHECK_TEST_KEEPALIVE_MS ?? 15000);

  // slowAsyncCalls: a number of ms, or a list of them used in turn (cycling), the same
  // sequence every run.
  let slowCount = 0;
  const slowDelay = () => {
    const s = flaws.slowAsyncCalls;
    return Array.isArray(s) ? s[slowCount++ % s.length] : s;
  };

  const tools = () => {
    if (flaws.lookupOnly) return [LOOKUP];
    if (flaws.badSchema)
      return TOOLS.map((t) => ({ ...t, inputSchema: { properties: t.inputSchema.properties } }));
    if (flaws.noDescription) {
      return TOOLS.map((t) =>
        t.name === 'add'
          ? {
              ...t,
              inputSchema: { ...t.inputSchema, properties: { a: { type: 'number' }, b: { type: 'number' } } },
            }
          : t,
      );
    }
    if (flaws.badDefault) {
      return TOOLS.map((t) =>
        t.name === 'diagnostics'
          ? {
              ...t,
              inputSchema: {
                type: 'object',
                properties: { verbose: { type: 'boolean', description: 'x', default: 'no' } },
              },
            }
          : t,
      );
    }
    if (flaws.writeFileTool) {
      // A tool that changes things (no readOnlyHint) beside one that says it only reads.
      return [
        ...TOOLS.map((t) => (t.name === 'echo' ? { ...t, annotations: { readOnlyHint: true } } : t)),
        {
          name: 'write_file',
          description: 'Writes a file.',
          inputSchema: {
            type: 'object',
            properties: { path: { type: 'string', description: 'where' } },
            required: ['path'],
          },
        },
      ];
    }
    if (flaws.slowTool) return [...TOOLS, SLOW];
    if (flaws.boundedArguments) return [...TOOLS, HASH_LOOKUP, CONTRADICTORY];
    return TOOLS;
  };

  const callTool = (params) => {
    const { name } = params;
    // Tests of --call-tools: every call of a listed tool is written down.
    if (process.env.WIRECHECK_TEST_CALL_LOG && [...TOOLS, HASH_LOOKUP].some((t) => t.name === name)) {
      appendFileSync(process.env.WIRECHECK_TEST_CALL_LOG, `${name}\n`);
    }
    const args = params.arguments ?? {};
    // slowCalls: every call of a listed tool takes this long, one at a time (the process sleeps).
    if (flaws.slowCalls && TOOLS.some((t) => t.name === name)) {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, flaws.slowCalls);
    }
    if (flaws.argumentsRequired && params.arguments === undefined) {
      return { error: { code: -32602, message: 'arguments are required' } };
    }
    if (flaws.badCallResult && TOOLS.some((t) => t.name === name)) {
      return { result: { content: [{ type: 'text', text: 42 }] } };
    }
    if (flaws.lookupOnly && name === 'lookup') {
      if (typeof args.id !== 'string' || !/^[0-9]+$/.test(args.id)) {
        return { error: { code: -32602, message: 'Invalid params: id must be digits' } };
      }
      return { result: text(`record ${args.id}`) };
    }
    if (name === 'echo') {
      if (typeof args.message !== 'string') {
        return flaws.invalidArgsAsResult
          ? { result: text('message must be a string', true) }
          : { error: { code: -32602, message: 'Invalid params: message must be a string' } };
      }
      // echoUpper (conforming: an echo may change the text); echoSwapped (gives back the text of the
      // echo call before it, whichever session made it: payloads mixed up across sessions, ids kept).
      if (flaws.echoUpper) return { result: text(args.message.toUpperCase()) };
      if (flaws.echoSwapped) {
        const previous = lastEcho ?? args.message;
        lastEcho = args.message;
        return { result: text(previous) };
      }
      return { result: text(args.message) };
    }
    if (name === 'add') {
      if (typeof args.a !== 'number') return { result: text('a must be a number', true) };
      if (flaws.crashOnNegative && args.a < 0) process.exit(3);
      if (flaws.stallOnNegative && args.a < 0 && !stalled) {
        // A machine too busy to run the server for a while: it reads and answers nothing
        // (the thread sleeps, no CPU used), then catches up with everything.
        stalled = true;
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, flaws.stallOnNegative);
      }
      const b = typeof args.b === 'number' ? args.b : 0;
      return { result: text(String(args.a + b)) };
    }
    if (name === 'diagnostics') {
      // diagnosticHello: one text item, but it tells neither a status nor anything of the process.
      if (flaws.diagnosticHello) return { result: text('hello') };
      const lines = [`status: ok`, `pid: ${process.pid}`, `uptime: ${process.uptime().toFixed(1)} s`];
      if (flaws.slowTool) lines.push(`in_flight_calls: ${inFlight}`);
      if (args.verbose === true)
        lines.push(`memory rss: ${process.memoryUsage().rss}`, `node: ${process.version}`);
      if (flaws.badDiagnostic) return { result: { content: lines.map((l) => ({ type: 'text', text: l })) } };
      return { result: text(lines.join('\n')) };
    }
    if (flaws.boundedArguments && name === HASH_LOOKUP.name) {
      const ok = typeof args.hash === 'string' && [...args.hash].length === 66 && args.vector?.length === 768;
      return ok ? { result: text('found') } : { error: { code: -32602, message: 'Invalid params' } };
    }
    if (flaws.unknownToolSuccess) return { result: text(`called ${name}`) };
    if (flaws.unknownToolIsError) return { result: text(`Tool ${name} not found`, true) };
    if (flaws.unknownToolUnnamed) return { error: { code: -32602, message: 'Unknown tool' } };
    return { error: { code: -32602, message: `Unknown tool: ${name}` } };
  };

  /** One message -> the reply object, or undefined for none. `state` is the session's. */
  const handle = (msg, state) => {
    if (hung) return undefined;
    // wedgeOnStringId: a request with a string id is never answered, nor anything after it on that session.
    if (flaws.wedgeOnStringId && (state.wedged || typeof msg?.id === 'string')) {
      state.wedged = true;
      return undefined;
    }
    // batchOneByOne: each member of a batch answered alone, as a message of its own (JSON-RPC 2.0
    // asks for one array, with a "should").
    if (flaws.batchOneByOne && Array.isArray(msg) && msg.length > 0)
      return { oneByOne: msg.map((m) => handle(m, state)).filter((r) => r !== undefined) };
    if (
      typeof msg !== 'object' ||
      msg === null ||
      Array.isArray(msg) ||
      msg.jsonrpc !== '2.0' ||
      typeof msg.method !== 'string'
    ) {
      if (flaws.silentOnMalformed) return undefined;
      const id = msg && (typeof msg.id === 'number' || typeof msg.id === 'string') ? msg.id : null;
      return { jsonrpc: '2.0', id, error: { code: -32600, message: 'Invalid Request' } };
    }
    if (!('id' in msg)) {
      if (flaws.replyToNotifications) {
        return {
          jsonrpc: '2.0',
          id: null,
          error: { code: -32601, message: `Method not found: ${msg.method}` },
        };
      }
      return undefined;
    }
    const id =
      flaws.stringIdsAsNumbers && typeof msg.id === 'string' && /^\d+$/.test(msg.id)
        ? Number(msg.id)
        : msg.id;
    const reply = (r) => ({ jsonrpc: '2.0', id, ...r });
    if (msg.method !== 'initialize' && msg.method !== 'ping' && !state.initialized) {
      if (flaws.silentBeforeInitialize) return undefined;
      if (transport === 'stdio' && !flaws.servesBeforeInitialize) {
        // exitBeforeInitialize: the error, then the end of the session (its process).
        if (flaws.exitBeforeInitialize) {
          process.stdin.pause();
          setTimeout(() => process.exit(0), 50);
        }
        return reply({ error: { code: -32002, message: `${msg.method} before initialize` } });
      }
    }
    switch (msg.method) {
      case 'initialize': {
        state.initialized = true;
        anyInitialized = true;
        // newerRevisionAlways: answers every initialize with its own newest revision, one later than
        // any wirecheck knows, even when the client asks for a revision it supports (no negotiation).
        if (flaws.newerRevisionAlways) {
          return reply({
            result: {
              protocolVersion:
                typeof flaws.newerRevisionAlways === 'string' ? flaws.newerRevisionAlways : NEWER_REVISION,
              capabilities: { tools: {} },
              serverInfo: { name: 'wirecheck-test-server', version: '1.0.0' },
            },
          });
        }
        const asked = msg.params?.protocolVersion;
        // knownRevisions: the revisions it speaks, the one asked for answered when among them.
        const version = flaws.otherVersion
          ? '2025-06-18'
          : (flaws.echoVersion && typeof asked === 'string') || flaws.knownRevisions?.includes(asked)
            ? asked
            : '2024-11-05';
        return reply({
          result: {
            protocolVersion: version,
            capabilities: flaws.noToolsCapability ? {} : { tools: {} },
            serverInfo: { name: 'wirecheck-test-server', version: '1.0.0' },
          },
        });
      }
      case 'ping':
        if (flaws.noPing) break;
        return reply({ result: {} });
      case 'tools/list': {
        if (flaws.silentToolsList) return undefined;
        // Two tools a page: the suite must follow nextCursor to see them all.
        const all = tools();
        const cursor = msg.params?.cursor;
        if (cursor !== undefined && flaws.badCursor) {
          return reply({ error: { code: -32602, message: `Invalid cursor ${cursor}` } });
        }
        // silentOnCursor: its paging code throws on a cursor (the nextCursor it gave), the exception is
        // swallowed, and that tools/list is never answered; the first page is.
        if (cursor !== undefined && flaws.silentOnCursor) return undefined;
        const start = typeof cursor === 'string' ? Number(cursor.replace('page-', '')) : 0;
        // heavyPages: every tool on the first page, then empty pages without end, each with that many characters of _meta.
        if (flaws.heavyPages) {
          const pad = { _meta: { pad: 'x'.repeat(flaws.heavyPages) } };
          return reply({
            result: { tools: start === 0 ? all : [], nextCursor: `page-${start + 2}`, ...pad },
          });
        }
        const page = all.slice(start, start + 2);
        const next = start + 2 < all.length ? { nextCursor: `page-${start + 2}` } : {};
        return reply({ result: { tools: page, ...next } });
      }
      case 'tools/call':
        if (typeof msg.params !== 'object' || msg.params === null) {
          return reply({ error: { code: -32602, message: 'params required' } });
        }
        if (flaws.exitOnCall && TOOLS.some((t) => t.name === msg.params.name)) process.exit(5);
        if (
          (flaws.hangOnNegative && msg.params.name === 'add' && msg.params.arguments?.a < 0) ||
          (flaws.hangOnCall && TOOLS.some((t) => t.name === msg.params.name))
        ) {
          hung = true;
          return undefined;
        }
        return reply(callTool(msg.params));
      default:
        if (flaws.unknownMethodResult) return reply({ result: {} });
    }
    return reply({
      error: { code: flaws.unknownMethodCode ?? -32601, message: `Method not found: ${msg.method}` },
    });
  };

  /** One text (a line or a POST body) -> the reply, or undefined. */
  const handleText = (t, state) => {
    let msg;
    try {
      msg = JSON.parse(t);
    } catch {
      if (flaws.crashOnMalformed) process.exit(2);
      if (flaws.silentOnMalformed) return undefined;
      return { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } };
    }
    return handle(msg, state);
  };

  if (transport === 'stdio') {
    // Starts counted in a file: from the Nth on, the server dies at once (a server that goes away mid-run).
    const startsFile = process.env.WIRECHECK_TEST_STARTS_FILE;
    if (flaws.diesFromStart !== undefined && startsFile) {
      appendFileSync(startsFile, 'x');
      if (readFileSync(startsFile, 'utf8').length >= flaws.diesFromStart) {
        process.stderr.write('test server: gone for good\n');
        process.exit(1);
      }
    }
    if (flaws.banner) process.stdout.write('tool server ready\n');
    let buffer = '';
    const state = { initialized: false };
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (chunk) => {
      buffer += chunk;
      for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
        const line = buffer.slice(0, nl).replace(/\r$/, '');
        buffer = buffer.slice(nl + 1);
        if (line.trim() === '') continue;
        // deferBeforeInitialize: a request other than initialize or ping is held until the
        // session is initialized, then answered (allowed: MCP states no rule for it).
        if (flaws.deferBeforeInitialize && !state.initialized && !/"(initialize|ping)"/.test(line)) {
          state.held = [...(state.held ?? []), line];
          continue;
        }
        const out = handleText(line, state);
        if (out === undefined) continue;
        if (out.oneByOne !== undefined) {
          for (const r of out.oneByOne) process.stdout.write(`${JSON.stringify(r)}\n`);
          continue;
        }
        // slowAsyncCalls: a call of a listed tool is answered that many ms late, while every
        // other request is served at once (a slow tool on a server that is not blocked by it).
        if (flaws.slowAsyncCalls && listedToolCall(line)) {
          setTimeout(() => process.stdout.write(`${JSON.stringify(out)}\n`), slowDelay());
          continue;
        }
        // slowOnNegative: add with a negative a is answered that many ms late; everything else at once.
        if (flaws.slowOnNegative && negativeAddCall(line)) {
          setTimeout(() => process.stdout.write(`${JSON.stringify(out)}\n`), flaws.slowOnNegative);
          continue;
        }
        const initializeReply = out.result?.serverInfo !== undefined;
        if (flaws.silentAfterInitialize && !initializeReply) continue;
        if (flaws.deepReplies && !initializeReply) {
          // A reply nested deeper than any reader reads (the harness's limit is 512).
          const depth = 20_000;
          process.stdout.write(
            `{"jsonrpc":"2.0","id":${JSON.stringify(out.id)},"result":{"deep":${'['.repeat(depth)}${']'.repeat(depth)}}}\n`,
          );
          continue;
        }
        process.stdout.write(`${JSON.stringify(out)}\n`);
        if (initializeReply && state.held !== undefined) {
          for (const held of state.held.splice(0)) {
            const answer = handleText(held, state);
            if (answer !== undefined) process.stdout.write(`${JSON.stringify(answer)}\n`);
          }
        }
        // flood: that many log notifications after the initialize reply (a chatty server, within
        // the protocol; over SSE, on every stream); lateBanner: then a line that is not JSON-RPC.
        if (initializeReply && flaws.flood !== undefined) {
          const note = (n) =>
            JSON.stringify({
              jsonrpc: '2.0',
              method: 'notifications/message',
              params: { level: 'info', data: `step ${n}` },
            });
          const lines = Array.from({ length: flaws.flood }, (_, n) => note(n));
          if (flaws.lateBanner) lines.push('tool server ready');
          process.stdout.write(`${lines.join('\n')}\n`);
        }
      }
    });
    process.stdin.on('end', () => {
      if (!flaws.noExitOnEof) process.exit(0);
      setInterval(() => {}, 1000); // the flaw: something keeps the process alive
    });
    return;
  }

  /** sessionId -> {res, timer} */
  const sessions = new Map();
  let lastClosedId;
  let streamsOpened = 0;
  /** deafAfterClose: set when the stream of the first session that was initialized closed. */
  let closedOnce = false;
  let newest;
  const frame = (res, event, data) => res.write(`event: ${event}\ndata: ${data}\n\n`);

  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://localhost');
    if (req.method === 'GET' && url.pathname === '/sse') {
      if (flaws.maxSessions !== undefined && sessions.size >= flaws.maxSessions) {
        // Bounded: at most maxSessions streams at once; more are refused until one closes.
        res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
        res.end(JSON.stringify({ error: 'too many sessions' }));
        return;
      }
      streamsOpened += 1;
      if (flaws.exitAfterStreams !== undefined && streamsOpened > flaws.exitAfterStreams) process.exit(4);
      const id = flaws.reuseSessionId && lastClosedId !== undefined ? lastClosedId : randomUUID();
      lastClosedId = undefined;
      const headers = {
        // notEventStreamAfterInitialize: streams are event streams until a session was initialized (a
        // client's first GETs pass); later ones are labelled text/plain, their frames unchanged.
        'content-type':
          flaws.notEventStream || (flaws.notEventStreamAfterInitialize && anyInitialized)
            ? 'text/plain'
            : 'text/event-stream',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
      };
      if (!flaws.noAccelHeader) headers['x-accel-buffering'] = 'no';
      res.writeHead(200, headers);
      if (flaws.endpointLate)
        frame(
          res,
          'message',
          JSON.stringify({
            jsonrpc: '2.0',
            method: 'notifications/message',
            params: { level: 'info', data: 'hello' },
          }),
        );
      // sessionParam: the query parameter named otherwise (the Python SDK's session_id);
      // sessionInPath: the session as the path's last segment, no query at all.
      // endpointHost: the endpoint as an absolute URL on another name of this server (another origin).
      const path = flaws.sessionInPath
        ? `/messages/${id}`
        : `/messages?${flaws.sessionParam ?? 'sessionId'}=${id}`;
      frame(
        res,
        'endpoint',
        flaws.endpointHost === undefined
          ? path
          : `http://${flaws.endpointHost}:${req.socket.localPort}${path}`,
      );
      // flood: as over stdio, that many log notifications, here on every stream after its endpoint.
      if (flaws.flood !== undefined) {
        const note = (n) =>
          `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: `step ${n}` } })}\n\n`;
        res.write(Array.from({ length: flaws.flood }, (_, n) => note(n)).join(''));
      }
      const timer = setInterval(() => {
        if (!flaws.noKeepAlive) res.write(': keep-alive\n\n');
      }, keepAliveMs);
      // deafAfterClose: a server whose one transport shut down with the first session that ended (one
      // that was initialized): a stream opened after that gets its endpoint, and its POSTs are
      // accepted but never answered.
      const deaf = flaws.deafAfterClose === true && closedOnce;
      const session = { id, res, timer, state: { initialized: false }, slow: new Set(), deaf };
      sessions.set(id, session);
      newest = session;
      res.on('close', () => {
        clearInterval(timer);
        if (!flaws.keepSlowCalls) {
          for (const t of session.slow) clearTimeout(t);
          inFlight -= session.slow.size;
          session.slow.clear();
        }
        // forgetClosedOnWrite: the session is forgotten only when its reply finds the stream gone.
        if (sessions.get(id) === session && !flaws.keepClosedSession && !flaws.forgetClosedOnWrite)
          sessions.delete(id);
        if (newest === session) newest = undefined;
        lastClosedId = id;
        if (session.state.initialized) closedOnce = true;
      });
      return;
    }
    if (
      req.method === 'POST' &&
      (url.pathname === '/messages' || (flaws.sessionInPath && url.pathname.startsWith('/messages/')))
    ) {
      if (
        flaws.loseHeaderOnly &&
        url.searchParams.get(flaws.sessionParam ?? 'sessionId') === null &&
        req.headers['mcp-session-id']
      ) {
        res.writeHead(202).end('Accepted');
        return;
      }
      const id =
        (flaws.sessionInPath ? url.pathname.slice('/messages/'.length) : null) ??
        url.searchParams.get(flaws.sessionParam ?? 'sessionId') ??
        (flaws.noSessionHeader ? null : req.headers['mcp-session-id']);
      let session = id === null || id === undefined ? undefined : sessions.get(id);
      if (session === undefined && flaws.routeUnknownToFirst) session = sessions.values().next().value;
      if (session === undefined) {
        if (flaws.no400) {
          res.writeHead(202).end('Accepted');
          return;
        }
        res
          .writeHead(400, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: `no active session ${id}` }));
        return;
      }
      if (flaws.oneClient && session !== [...sessions.values()].find((s) => !s.res.destroyed)) {
        res
          .writeHead(409, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: 'another client is connected' }));
        return;
      }
      const chunks = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const slowCall = flaws.slowTool ? slowToolCall(body) : undefined;
        if (slowCall !== undefined) {
          res.writeHead(202).end('Accepted');
          inFlight += 1;
          const t = setTimeout(() => {
            session.slow.delete(t);
            inFlight -= 1;
            const done = { jsonrpc: '2.0', id: slowCall.id, result: text(`waited ${slowCall.ms} ms`) };
            if (!session.res.destroyed) frame(session.res, 'message', JSON.stringify(done));
          }, slowCall.ms);
          session.slow.add(t);
          return;
        }
        // refuseBeforeInitialize: a POST of anything but initialize or ping before it, refused with 400.
        if (flaws.refuseBeforeInitialize && !session.state.initialized && !/"(initialize|ping)"/.test(body)) {
          res
            .writeHead(400, { 'content-type': 'application/json' })
            .end(JSON.stringify({ error: 'session not initialized' }));
          return;
        }
        const out = handleText(body, session.state);
        // replyToNotificationsInBody: a notification's POST answered 200 with a JSON-RPC error in
        // its body (requests are answered on the stream as usual).
        if (flaws.replyToNotificationsInBody && isNotification(body)) {
          res.writeHead(200, { 'content-type': 'application/json' }).end(
            JSON.stringify({
              jsonrpc: '2.0',
              id: null,
              error: { code: -32601, message: 'Method not found' },
            }),
          );
          return;
        }
        // replyInBodyAfterInitialize: initialize answered on the stream, every later reply in the POST body.
        const initializeReply = out?.result?.serverInfo !== undefined;
        if (
          flaws.replyInBody ||
          (flaws.replyInBodyAfterInitialize && out !== undefined && !initializeReply)
        ) {
          res
            .writeHead(200, { 'content-type': 'application/json' })
            .end(out === undefined ? '' : JSON.stringify(out));
          return;
        }
        res.writeHead(flaws.post200 ? 200 : 202).end('Accepted');
        if (session.deaf) return;
        // forgetClosedOnWrite: n (true: 1): forgotten at the nth reply written after the stream
        // closed (a server that notices a closed stream by a failed write: over TCP the second).
        if (flaws.forgetClosedOnWrite && session.res.destroyed) {
          session.writesAfterClose = (session.writesAfterClose ?? 0) + 1;
          const nth = flaws.forgetClosedOnWrite === true ? 1 : flaws.forgetClosedOnWrite;
          if (session.writesAfterClose >= nth && sessions.get(session.id) === session)
            sessions.delete(session.id);
          return;
        }
        if (out === undefined) return;
        if (flaws.silentAfterInitialize && out.result?.serverInfo === undefined) return;
        if (flaws.serialCalls !== undefined) {
          // One message of a session at a time, in order: a call of a listed tool takes
          // serialCalls ms, and what the session sent after it waits (other sessions do not).
          const wait = listedToolCall(body) ? flaws.serialCalls : 0;
          session.queue = (session.queue ?? Promise.resolve()).then(
            () =>
              new Promise((done) =>
                setTimeout(() => {
                  if (!session.res.destroyed) frame(session.res, 'message', JSON.stringify(out));
                  done();
                }, wait),
              ),
          );
          return;
        }
        if (flaws.slowAsyncCalls && listedToolCall(body)) {
          // As over stdio: the call is answered late, on its session's stream if still open.
          setTimeout(() => {
            if (!session.res.destroyed) frame(session.res, 'message', JSON.stringify(out));
          }, slowDelay());
          return;
        }
        if (flaws.broadcast) {
          for (const s of sessions.values())
            if (!s.res.destroyed) frame(s.res, 'message', JSON.stringify(out));
          return;
        }
        if (out.oneByOne !== undefined) {
          for (const r of out.oneByOne)
            if (!session.res.destroyed) frame(session.res, 'message', JSON.stringify(r));
          return;
        }
        const target = flaws.wrongSession ? (newest ?? session) : session;
        // responseEventAfterInitialize: initialize answered as event message, every later reply as event response.
        const event = flaws.responseEventAfterInitialize && !initializeReply ? 'response' : 'message';
        if (!target.res.destroyed) frame(target.res, event, JSON.stringify(out));
      });
      return;
    }
    res.writeHead(404).end('not found');
  });
  server.listen(Number(opt('--port', '0')), '127.0.0.1', () => {
    process.stdout.write(`listening on http://127.0.0.1:${server.address().port}/sse\n`);
  });
  process.on('SIGTERM', () => process.exit(0));
}
