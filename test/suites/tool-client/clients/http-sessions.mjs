// A Streamable HTTP tool client (MCP 2025-03-26 and later) written from the spec and TARGETS.md
// alone (plain Node: fetch and a hand-written SSE reader; no wirecheck code), for the session and
// resumption checks. Without arguments it conforms: the session id of the initialize answer and
// the negotiated MCP-Protocol-Version on every later request, pings answered, an answer stream
// that ends before its response resumed with GET and Last-Event-ID after its `retry`, DELETE at
// the end. It speaks every revision of the transport and asks for the newest. Each argument
// turns on one behaviour:
//   probe          equivalent: first a probe session (initialize, initialized, tools/list), then
//                  the real one; the probe's DELETE goes out after the real initialize was answered
//   pipeline       equivalent (MCP: SHOULD NOT): tools/list POSTed 300 ms after the initialize POST
//                  began, whether or not its result came, and without a session id or version
//                  (both come with the result, which this client reads only after); its 400 is ignored
//   no-session-id  a flaw: never send Mcp-Session-Id (and take no notification's answer as a failure)
//   batch-call     equivalent: tools/call POSTed as a one-element batch (MCP 2025-03-26: peers MUST
//                  support receiving batches)
//   two-get-streams equivalent (MCP 2025-03-26: a client MAY stay connected to several SSE streams):
//                  once initialized, opens the GET stream and then a second, whose refusal (the mock
//                  answers 409, as the official SDK's server) it ignores; the first stays open to the end
import { readEvents } from './sse-events.mjs';

const flags = new Set(process.argv.slice(2));
const url = process.env.WIRECHECK_SERVER_URL;
const ACCEPT = 'application/json, text/event-stream';
const SPEAKS = ['2025-03-26', '2025-06-18', '2025-11-25'];

class ClientFailure extends Error {}

let nextId = 1;

async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

function session() {
  let listening;
  let sid;
  let version;
  const headers = (extra = {}) => ({
    ...(sid !== undefined && !flags.has('no-session-id') ? { 'mcp-session-id': sid } : {}),
    ...(version !== undefined ? { 'mcp-protocol-version': version } : {}),
    ...extra,
  });
  /** `bare`: a POST composed before the session was known, with neither its id nor its version. */
  const post = (body, bare = false) => {
    const own = { 'content-type': 'application/json', accept: ACCEPT };
    return fetch(url, { method: 'POST', headers: bare ? own : headers(own), body: JSON.stringify(body) });
  };
  /** A message the server sent on an answer stream: a request of its own is answered. */
  const fromServer = async (message) => {
    if (message.method === undefined || message.id === undefined) return;
    const answer =
      message.method === 'ping'
        ? { jsonrpc: '2.0', id: message.id, result: {} }
        : {
            jsonrpc: '2.0',
            id: message.id,
            error: { code: -32601, message: `Method not found: ${message.method}` },
          };
    await (await post(answer)).text();
  };
  /** The response to request `id` from the POST's answer, resuming its stream when it ends early. */
  const responseTo = async (id, r) => {
    const type = r.headers.get('content-type') ?? '';
    if (!type.startsWith('text/event-stream')) {
      const value = JSON.parse(await r.text());
      const found = (Array.isArray(value) ? value : [value]).find(
        (m) => m.id === id && m.method === undefined,
      );
      if (found === undefined) throw new ClientFailure(`no response to request ${id} in the JSON answer`);
      return found;
    }
    let body = r.body;
    let lastId;
    let retryMs = 1000;
    for (let attempt = 0; attempt < 3; attempt++) {
      let found;
      await readEvents(body, async (event) => {
        if (event.id !== undefined) lastId = event.id;
        if (event.retry !== undefined) retryMs = event.retry;
        if (event.data === undefined || event.data === '') return;
        const message = JSON.parse(event.data);
        if (message.id === id && message.method === undefined) found = message;
        else await fromServer(message);
      });
      if (found !== undefined) return found;
      if (lastId === undefined) break;
      await new Promise((resolve) => setTimeout(resolve, retryMs));
      const resumed = await fetch(url, {
        headers: headers({ accept: 'text/event-stream', 'last-event-id': lastId }),
      });
      if (resumed.status !== 200)
        throw new ClientFailure(`resuming the stream: GET answered HTTP ${resumed.status}`);
      body = resumed.body;
    }
    throw new ClientFailure(`the answer stream of request ${id} ended before its response`);
  };
  const request = async (method, params, { batch = false, bare = false } = {}) => {
    const id = nextId++;
    const message = { jsonrpc: '2.0', id, method, params };
    const r = await post(batch ? [message] : message, bare);
    if (r.status !== 200)
      throw new ClientFailure(`${method}: POST answered HTTP ${r.status}: ${await r.text()}`);
    const response = await responseTo(id, r);
    if (response.error !== undefined) {
      throw new ClientFailure(`server error ${response.error.code}: ${response.error.message}`);
    }
    return response.result;
  };
  return {
    async initialize() {
      const id = nextId++;
      const answered = post({
        jsonrpc: '2.0',
        id,
        method: 'initialize',
        params: {
          protocolVersion: SPEAKS.at(-1),
          capabilities: {},
          clientInfo: { name: 'http-sessions', version: '0.0.1' },
        },
      });
      // Pipelined: composed with initialize, so it knows no session, and sent a while after it
      // (so that it arrives second) whether or not the result came; before a slow result.
      const listed = flags.has('pipeline')
        ? new Promise((resolve) => setTimeout(resolve, 300)).then(() =>
            request('tools/list', {}, { bare: true }).catch(() => {}),
          )
        : undefined;
      listed?.catch(() => {});
      const r = await answered;
      if (r.status !== 200) throw new ClientFailure(`initialize: POST answered HTTP ${r.status}`);
      const response = await responseTo(id, r);
      if (response.error !== undefined) throw new ClientFailure(`initialize: ${response.error.message}`);
      if (!SPEAKS.includes(response.result?.protocolVersion)) {
        throw new ClientFailure(`the server answered protocol version ${response.result?.protocolVersion}`);
      }
      sid = r.headers.get('mcp-session-id') ?? undefined;
      version = response.result.protocolVersion;
      await listed;
      const note = await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
      await note.text();
      if (note.status !== 202 && note.status !== 200 && !flags.has('no-session-id')) {
        throw new ClientFailure(`notifications/initialized: POST answered HTTP ${note.status}`);
      }
    },
    request,
    /** Two GET streams: the first kept open until close, the answer to the second (its status) returned. */
    async openTwoGetStreams() {
      const get = (signal) =>
        fetch(url, { headers: headers({ accept: 'text/event-stream' }), ...(signal ? { signal } : {}) });
      listening = new AbortController();
      // Its status is not looked at: the mock may refuse GET streams (405), its right.
      await get(listening.signal);
      const second = await get();
      await second.text().catch(() => {});
      return second.status;
    },
    async close() {
      listening?.abort();
      if (sid === undefined) return;
      await (await fetch(url, { method: 'DELETE', headers: headers() })).text();
    },
  };
}

async function main() {
  if (process.env.WIRECHECK_TRANSPORT !== 'http') {
    throw new ClientFailure(
      `this client speaks Streamable HTTP only, not ${process.env.WIRECHECK_TRANSPORT}`,
    );
  }
  const input = JSON.parse(await readStdin());
  let probe;
  if (flags.has('probe')) {
    probe = session();
    await probe.initialize();
    await probe.request('tools/list', {});
  }
  const s = session();
  try {
    await s.initialize();
    await probe?.close();
    if (flags.has('two-get-streams')) await s.openTwoGetStreams();
    const params = {
      name: input.tool,
      ...(input.arguments === undefined ? {} : { arguments: input.arguments }),
    };
    const result = await s.request('tools/call', params, { batch: flags.has('batch-call') });
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    await s.close().catch(() => {});
  }
}

try {
  await main();
  process.exit(0);
} catch (e) {
  process.stdout.write(
    `${JSON.stringify({ error: { message: e instanceof Error ? e.message : String(e) } })}\n`,
  );
  process.exit(1);
}
