// A small tool client written from the spec and TARGETS.md alone (plain Node: child_process,
// fetch, a hand-written SSE parser; no wirecheck code), with switchable flaws. Without flaws
// it is an independent conforming client: the suite must pass it. Each file next to this one
// turns on one flaw.
import { spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { Readable } from 'node:stream';
import { readEvents } from './sse-events.mjs';

/**
 * @typedef {object} Flaws
 * @property {string} [protocolVersion] ask for this version instead of 2024-11-05 (2025-03-26 over http)
 * @property {boolean} [noClientInfo] leave clientInfo out of initialize
 * @property {boolean} [noCapabilities] leave capabilities out of initialize
 * @property {'always' | 'without-arguments'} [discoverFirst] send server/discover before initialize and give
 *   up when it is refused: always, or only for a call without arguments
 * @property {boolean} [noInitialized] never send notifications/initialized
 * @property {boolean} [callBeforeInitialized] send tools/call before notifications/initialized
 * @property {boolean} [sameId] use id 1 for every request
 * @property {boolean} [stringIds] use string ids
 * @property {boolean} [ignorePing] never answer the server's requests
 * @property {boolean} [pingClobbers] answer a ping, then take it as the end of the pending call: print an empty result
 * @property {boolean} [endpointAsIs] fetch the endpoint event's data without resolving it
 * @property {boolean} [alwaysPrefix] prefix the origin to the endpoint even when it is a URL
 * @property {boolean} [only202] treat any POST status but 202 as a failure
 * @property {boolean} [crashOnComment] throw on an SSE comment line
 * @property {boolean} [failOnUnknownNotification] treat an unknown notification as a protocol failure
 * @property {boolean} [wrongResult] print only the text of the first content item
 * @property {boolean} [exitZeroOnError] print the error object but exit 0
 * @property {boolean} [skipNonJson] ignore stdout lines that are not JSON
 * @property {boolean} [nonJsonAsText] take a stdout line that is not JSON as the tool's text result
 * @property {boolean} [hangOnClose] keep waiting when the server goes away
 * @property {boolean} [dropArguments] always send empty arguments
 * @property {number} [callTimeoutMs] fail a tools/call that gets no reply within this time
 * @property {boolean} [timeoutAsResult] with callTimeoutMs: print the timeout as an isError result and exit 0
 * @property {boolean} [killFirst] end a stdio session with SIGTERM before closing the server's stdin
 * @property {boolean} [killServer] end a stdio session with SIGKILL, the server's stdin left open (as Go's
 *   exec.CommandContext and Rust's Child::kill do), then wait for the server's exit
 * @property {boolean} [hangAtEnd] print the result, then never end the session nor exit, deaf to SIGTERM
 * @property {boolean} [noAccept] open the SSE stream without Accept: text/event-stream
 * @property {boolean} [textPlainPost] POST with Content-Type: text/plain
 * @property {boolean} [sameOriginOnly] refuse an endpoint on another origin (as the official SDK does)
 * @property {boolean} [ignoreVersion] carry on whatever protocol version the server answers
 * @property {boolean} [noAwait] send initialize, initialized and tools/call without waiting for replies
 * @property {boolean} [pipelineList] send tools/list right after initialize, before its result (MCP: SHOULD NOT),
 *   and notifications/initialized only once the result arrived (over http: 300 ms after the initialize POST began)
 * @property {boolean} [initializedEarly] send notifications/initialized right after initialize, before its result
 *   (over http: 300 ms after the initialize POST began)
 * @property {boolean} [failOnCancel] take a notifications/cancelled naming its call as the call's failure
 * @property {boolean} [addIsErrorDefault] print the result with the default isError: false written out
 * @property {boolean} [dropFalseIsError] print the result without an isError: false the server sent
 * @property {boolean} [sortArgumentKeys] equivalent: send the arguments' object keys sorted (JSON objects are unordered)
 * @property {boolean} [batchNotifications] equivalent: send notifications and answers to the server's
 *   requests as one-message batches (MCP: peers MUST support receiving batches)
 * @property {boolean} [pingMeta] equivalent: answer a ping with a result that carries `_meta`
 * @property {boolean} [overlapInitialized] equivalent: over HTTP, send tools/call without waiting for the answer
 *   to the notifications/initialized POST, whose body trickles in: its POST begins first (the server has read its
 *   headers, and the first half of its body was sent, before the call's POST starts) and ends last (the rest of
 *   its body goes once the call was answered)
 * @property {boolean} [sseSessionHeader] over SSE, POST to the endpoint's path without its query, the session
 *   in the Mcp-Session-Id header only (a server takes either; the client must use the endpoint as is)
 * @property {boolean} [probeSse] equivalent: over SSE, first probe the server (a session of its own:
 *   initialize, 202, the stream closed), then open the real session
 * @property {string[]} [speaks] the versions this client goes on with (default: the one it asks for
 *   unless told, 2024-11-05, or 2025-03-26 over http)
 * @property {'negotiated' | 'requested'} [versionHeader] after initialize, send MCP-Protocol-Version on every
 *   POST: the version the server answered, or (a flaw) the one the client asked for (over Streamable HTTP,
 *   which always sends it, only 'requested' changes what it names)
 * @property {boolean} [httpAcceptJsonOnly] Streamable HTTP: POST with Accept: application/json only
 * @property {boolean} [httpNoSessionId] Streamable HTTP: never send Mcp-Session-Id
 * @property {boolean} [httpNoReinitialize] Streamable HTTP: take a 404 as a failure instead of starting a new session
 * @property {boolean} [httpNoProtocolVersion] Streamable HTTP: never send MCP-Protocol-Version
 * @property {boolean} [httpJsonOnly] Streamable HTTP: fail on an event-stream answer
 * @property {boolean} [httpSseOnly] Streamable HTTP: fail on a JSON answer
 * @property {boolean} [httpNoResume] Streamable HTTP: fail when an answer stream ends early instead of resuming
 * @property {boolean} [httpWrongLastEventId] Streamable HTTP: resume with a Last-Event-ID the server never sent
 * @property {boolean} [httpIgnoreRetry] Streamable HTTP: wait 100 ms before resuming whatever the stream's retry field says
 * @property {boolean} [httpNoDelete] Streamable HTTP: end without DELETE
 * @property {boolean} [httpConcurrent] equivalent: Streamable HTTP: send tools/list and tools/call at once after
 *   initialized; every request answered 404 for the ended session waits for one new session, then goes again
 * @property {boolean} [httpDeleteExpired] equivalent: Streamable HTTP: once a new session replaced one answered 404,
 *   send DELETE for the old one (cleanup; its 404 is ignored)
 * @property {boolean} [neverCalls] give up after initialize, before tools/call, with an error
 * @property {boolean} [floodPings] after initialized, send ping after ping without end instead of tools/call
 * @property {boolean} [onlyNotifies] send notifications/initialized and give up with an error: no request at all
 * @property {boolean} [listsThenGivesUp] after initialized, send tools/list and give up with an error, whatever
 *   the tool: it never calls one, not even the plain echo call
 * @property {boolean} [refusesUnlisted] equivalent: after initialized, send tools/list and refuse a tool it does
 *   not list with an error, without calling it (as a client that validates calls against the list does)
 * @property {boolean} [bigIds] equivalent: integer request ids from 2^53 up (as a client with 64-bit integers
 *   may use; JSON-RPC ids are any number), written and matched exactly, as a Go or Rust client does
 * @property {boolean} [listInOwnSession] equivalent: over stdio, list the tools in a server process of their own
 *   first (initialize, initialized, tools/list, stdin closed), then start another for the call
 */

class ClientFailure extends Error {}

/** Flaw bigIds: ids are BigInts, written and read with every digit (JSON.parse would round them past 2^53). */
let exactIds = false;

/** JSON text of a message (ids that are BigInts written out in full). */
function toJson(value) {
  if (!exactIds) return JSON.stringify(value);
  return JSON.stringify(value, (_key, v) => (typeof v === 'bigint' ? JSON.rawJSON(v.toString()) : v));
}

/** A message from its JSON text (an integer id read as a BigInt, every digit kept). */
function fromJson(text) {
  if (!exactIds) return JSON.parse(text);
  return JSON.parse(text, (key, v, context) =>
    key === 'id' && typeof v === 'number' && /^-?\d+$/.test(context?.source ?? '')
      ? BigInt(context.source)
      : v,
  );
}

/**
 * Not a flaw (listInOwnSession): a server process of its own to list the tools, shut down before
 * the call's session starts, as clients that open a session per operation do.
 */
async function listInOwnSession(command, params) {
  const waiting = new Map();
  let failure;
  const events = {
    message(value) {
      waiting.get(value.id)?.(value);
    },
    fail(error) {
      failure = error;
    },
    closed() {},
  };
  const connection = stdioConnection(command, {}, events);
  const ask = (id, method, params) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(failure ?? new ClientFailure(`${method}: no reply`)), 5000);
      waiting.set(id, (value) => {
        clearTimeout(timer);
        resolve(value);
      });
      void connection.send({ jsonrpc: '2.0', id, method, params });
    });
  await ask(1, 'initialize', params);
  await connection.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  await ask(2, 'tools/list', {});
  await connection.close();
}

async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/** stdio: spawn the server command; newline-delimited JSON on its stdin/stdout. */
function stdioConnection(command, flaws, events) {
  const child = spawn('sh', ['-c', command], { stdio: ['pipe', 'pipe', 'inherit'] });
  let buffer = '';
  let lineNumber = 0;
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    buffer += chunk;
    for (;;) {
      const nl = buffer.indexOf('\n');
      if (nl < 0) break;
      const line = buffer.slice(0, nl).replace(/\r$/, '');
      buffer = buffer.slice(nl + 1);
      if (line.trim() === '') continue;
      lineNumber++;
      let value;
      try {
        value = fromJson(line);
      } catch {
        if (flaws.skipNonJson) continue;
        if (flaws.nonJsonAsText) {
          process.stdout.write(`${JSON.stringify({ content: [{ type: 'text', text: line }] })}\n`);
          process.exit(0);
        }
        events.fail(
          new ClientFailure(
            `server stdout line ${lineNumber} is not JSON: ${JSON.stringify(line.slice(0, 80))}`,
          ),
        );
        return;
      }
      events.message(value);
    }
  });
  let exited = false;
  const exit = new Promise((resolve) => child.on('exit', resolve));
  child.on('exit', () => {
    exited = true;
    events.closed('the server process exited');
  });
  child.stdin.on('error', () => {});
  return {
    send: async (message) => {
      child.stdin.write(`${toJson(message)}\n`);
    },
    // MCP shutdown over stdio: close the server's stdin, wait, signal only if it stays.
    close: async () => {
      if (exited) return;
      if (flaws.hangAtEnd) {
        process.on('SIGTERM', () => {});
        await new Promise(() => setInterval(() => {}, 60_000));
      }
      if (flaws.killServer) {
        child.kill('SIGKILL');
        await Promise.race([exit, new Promise((r) => setTimeout(r, 1000))]);
        // A Go or Rust client goes on after the kill (it prints its result, closes other
        // things): the relay's watcher says K only while the client still runs, and on a loaded
        // machine it may not be scheduled before a client that exits at once is gone.
        await new Promise((r) => setTimeout(r, 500));
        return;
      }
      if (flaws.killFirst) {
        child.kill('SIGTERM');
        await Promise.race([exit, new Promise((r) => setTimeout(r, 1000))]);
        return;
      }
      child.stdin.end();
      await Promise.race([exit, new Promise((r) => setTimeout(r, 1000))]);
      if (!exited) child.kill('SIGTERM');
    },
  };
}

/** SSE: GET the stream, wait for the endpoint event, POST each message there. */
async function sseConnection(url, flaws, events) {
  const controller = new AbortController();
  const response = await fetch(url, {
    headers: flaws.noAccept ? {} : { accept: 'text/event-stream' },
    signal: controller.signal,
  });
  if (response.status !== 200) throw new ClientFailure(`GET ${url} answered HTTP ${response.status}`);
  let resolveEndpoint;
  const endpoint = new Promise((resolve) => {
    resolveEndpoint = resolve;
  });
  const onFrame = (event, data) => {
    if (event === 'endpoint') {
      let target;
      if (flaws.endpointAsIs) target = data;
      else if (flaws.alwaysPrefix) target = new URL(url).origin + data;
      else target = /^[a-z][a-z0-9+.-]*:/i.test(data) ? data : new URL(data, new URL(url).origin).href;
      if (flaws.sameOriginOnly && new URL(target, url).origin !== new URL(url).origin) {
        events.fail(
          new ClientFailure(
            `endpoint origin ${new URL(target).origin} does not match ${new URL(url).origin}`,
          ),
        );
        resolveEndpoint(undefined);
        return;
      }
      resolveEndpoint(target);
      return;
    }
    if (event === 'message' || event === undefined) {
      try {
        events.message(fromJson(data));
      } catch {
        events.fail(
          new ClientFailure(`an SSE message event is not JSON: ${JSON.stringify(data.slice(0, 80))}`),
        );
      }
    }
  };
  (async () => {
    try {
      await readEvents(
        response.body,
        ({ event, data }) => {
          if (data !== undefined) onFrame(event, data);
        },
        (line) => {
          if (flaws.crashOnComment) throw new Error(`unexpected line ${JSON.stringify(line)}`);
        },
      );
      events.closed('the SSE stream ended');
    } catch (e) {
      if (controller.signal.aborted) return;
      if (flaws.crashOnComment && String(e.message).startsWith('unexpected line')) {
        // The flaw: an uncaught crash, as a client that does not know comments would have.
        console.error(e.stack);
        process.exit(70);
      }
      events.closed(`the SSE stream failed: ${e.message}`);
    }
  })();
  const announced = await endpoint;
  if (announced === undefined) throw new ClientFailure('the endpoint was refused');
  let target = announced;
  const sessionHeader = {};
  if (flaws.sseSessionHeader) {
    const at = new URL(announced, url);
    const session = at.searchParams.get('sessionId');
    if (session !== null) {
      at.searchParams.delete('sessionId');
      target = at.href;
      sessionHeader['mcp-session-id'] = session;
    }
  }
  return {
    send: async (message) => {
      const r = await postMessage(
        target,
        {
          'content-type': flaws.textPlainPost ? 'text/plain' : 'application/json',
          ...(flaws.headerVersion === undefined ? {} : { 'mcp-protocol-version': flaws.headerVersion }),
          ...sessionHeader,
        },
        message,
        flaws,
      );
      await r.text();
      const ok = flaws.only202 ? r.status === 202 : r.status === 202 || r.status === 200;
      if (!ok) throw new ClientFailure(`POST ${target} answered HTTP ${r.status}`);
    },
    close: () => controller.abort(),
  };
}

/** Flaw overlapInitialized: how long after the server has the notification's headers tools/call starts. */
const OVERLAP_LEAD_MS = 1000;

/**
 * Flaw overlapInitialized: the notifications/initialized POST in flight while tools/call goes
 * (trickledPost); undefined until it was started.
 */
let trickling;

/** A POST's fetch answer: the notifications/initialized one trickled (flaw overlapInitialized), any other by fetch. */
function postMessage(url, headers, message, flaws) {
  const text = toJson(message);
  if (flaws.overlapInitialized && message.method === 'notifications/initialized') {
    trickling = trickledPost(url, headers, text);
    return trickling.response;
  }
  return fetch(url, { method: 'POST', headers, body: text });
}

/**
 * POST `text` in two halves. The order is made, not hoped for from timers: `begun`
 * settles once the server has read the headers (its 100 Continue, which a Node.js server writes
 * as it hands the request on) and the first half was handed to the socket, so a request started
 * after it begins to arrive after it however the processes are scheduled; the rest goes at
 * `finish()`, once the request that overtakes it was answered, so this one also ends last.
 * `response` is the answer as a fetch Response.
 */
function trickledPost(url, headers, text) {
  const bytes = Buffer.from(text);
  const half = bytes.length >> 1;
  let begin;
  let failBegin;
  const begun = new Promise((resolve, reject) => {
    begin = resolve;
    failBegin = reject;
  });
  const request = httpRequest(url, {
    method: 'POST',
    headers: { ...headers, 'content-length': String(bytes.length), expect: '100-continue' },
  });
  const response = new Promise((resolve, reject) => {
    request.on('continue', () => request.write(bytes.subarray(0, half), () => begin()));
    request.on('response', (r) => {
      // Answered without waiting for the body (a refusal): nothing is left to overtake.
      begin();
      const status = r.statusCode ?? 0;
      const fields = new Headers();
      for (const [name, value] of Object.entries(r.headers)) {
        for (const v of Array.isArray(value) ? value : [value ?? '']) fields.append(name, v);
      }
      const body = [204, 205, 304].includes(status) ? null : Readable.toWeb(r);
      resolve(new Response(body, { status, headers: fields }));
    });
    request.on('error', (e) => {
      failBegin(e);
      reject(e);
    });
  });
  begun.catch(() => {});
  request.flushHeaders();
  let finished = false;
  return {
    begun,
    response,
    finish() {
      if (finished || request.writableEnded) return;
      finished = true;
      request.end(bytes.subarray(half));
    },
  };
}

/**
 * Streamable HTTP (MCP 2025-03-26 and later): each message one POST to the endpoint, the
 * answer JSON or an event stream; the session id of the initialize answer on every later
 * request; a new session after a 404; resumption with GET and Last-Event-ID; DELETE at the end.
 */
function httpConnection(url, flaws, events, initParams) {
  let session;
  let version;
  let reinitializing = false;
  const headers = (extra = {}) => ({
    ...(session !== undefined && !flaws.httpNoSessionId ? { 'mcp-session-id': session } : {}),
    ...(version !== undefined && !flaws.httpNoProtocolVersion
      ? {
          'mcp-protocol-version': flaws.versionHeader === 'requested' ? initParams.protocolVersion : version,
        }
      : {}),
    ...extra,
  });
  const deliver = (message) => {
    if (message?.result?.protocolVersion !== undefined && version === undefined)
      version = message.result.protocolVersion;
    events.message(message);
  };
  const readAnswerStream = async (body, owed) => {
    let lastId;
    let retryMs;
    for (let attempt = 0; ; attempt++) {
      await readEvents(body, ({ event, id, retry, data }) => {
        if (id !== undefined) lastId = id;
        if (retry !== undefined) retryMs = retry;
        if (data === undefined || data === '' || (event !== undefined && event !== 'message')) return;
        const message = fromJson(data);
        if ('id' in message && !('method' in message)) owed.delete(message.id);
        deliver(message);
      });
      if (owed.size === 0) return;
      if (flaws.httpNoResume || lastId === undefined || attempt >= 3) {
        throw new ClientFailure('the answer stream ended before the response');
      }
      await new Promise((r) => setTimeout(r, flaws.httpIgnoreRetry ? 100 : (retryMs ?? 100)));
      const r = await fetch(url, {
        headers: headers({
          accept: 'text/event-stream',
          'last-event-id': flaws.httpWrongLastEventId ? `${lastId}7` : lastId,
        }),
      });
      if (r.status !== 200) throw new ClientFailure(`resuming the stream: GET answered HTTP ${r.status}`);
      body = r.body;
    }
  };
  const post = async (message) => {
    const r = await postMessage(
      url,
      headers({
        'content-type': 'application/json',
        accept: flaws.httpAcceptJsonOnly ? 'application/json' : 'application/json, text/event-stream',
      }),
      message,
      flaws,
    );
    if (message.method === 'initialize') session = r.headers.get('mcp-session-id') ?? undefined;
    return r;
  };
  let reinit;
  /** A new session in place of `expired` (answered 404), with DELETE for the old one when the flaw says so. */
  const reinitialize = async (expired) => {
    session = undefined;
    version = undefined;
    const init = await post({ jsonrpc: '2.0', id: 'reinitialize', method: 'initialize', params: initParams });
    const type = init.headers.get('content-type') ?? '';
    if (type.startsWith('text/event-stream')) {
      await readEvents(init.body, ({ data }) => {
        if (data !== undefined && data !== '') version = JSON.parse(data).result?.protocolVersion;
      });
    } else version = (await init.json()).result?.protocolVersion;
    await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' })).text();
    if (flaws.httpDeleteExpired) {
      const r = await fetch(url, { method: 'DELETE', headers: { 'mcp-session-id': expired } }).catch(
        () => undefined,
      );
      await r?.text();
    }
  };
  const send = async (message) => {
    if (message.method === 'initialize') {
      session = undefined;
      version = undefined;
    }
    const sentSession = session;
    const r = await post(message);
    if (
      r.status === 404 &&
      sentSession !== undefined &&
      (flaws.httpConcurrent || flaws.httpDeleteExpired) &&
      !flaws.httpNoReinitialize
    ) {
      await r.text();
      // One new session for every request that met the 404 (a request may arrive after it was made).
      if (session === sentSession) {
        reinit ??= reinitialize(sentSession).finally(() => {
          reinit = undefined;
        });
      }
      await reinit;
      return send(message);
    }
    if (r.status === 404 && sentSession !== undefined && !flaws.httpNoReinitialize && !reinitializing) {
      await r.text();
      // The session ended: a new one, then the message again.
      reinitializing = true;
      await reinitialize(sentSession);
      reinitializing = false;
      // Not a flaw: MCP asks for the new session, not for the request to be sent again.
      if (flaws.httpReinitializeNoRetry)
        throw new ClientFailure('the session expired (HTTP 404); a new one was started');
      return send(message);
    }
    if (r.status === 202) {
      await r.text();
      return;
    }
    if (r.status !== 200) throw new ClientFailure(`POST answered HTTP ${r.status}: ${await r.text()}`);
    const owed = new Set('id' in message && 'method' in message ? [message.id] : []);
    if (owed.size === 0) {
      await r.text();
      return;
    }
    const type = r.headers.get('content-type') ?? '';
    if (type.startsWith('text/event-stream')) {
      if (flaws.httpJsonOnly) throw new ClientFailure('the server answered with an event stream');
      readAnswerStream(r.body, owed).catch((e) => events.fail(e));
      return;
    }
    if (flaws.httpSseOnly) throw new ClientFailure('the server answered with JSON');
    const value = fromJson(await r.text());
    for (const m of Array.isArray(value) ? value : [value]) deliver(m);
  };
  return {
    send,
    close: async () => {
      if (flaws.httpNoDelete || session === undefined) return;
      await fetch(url, { method: 'DELETE', headers: headers() }).catch(() => {});
    },
  };
}

/** A JSON value with every object's keys in sorted order (as Go maps and serde_json write them). */
function sortedKeys(value) {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, sortedKeys(value[k])]),
  );
}

/** @param {Flaws} flaws */
export async function main(flaws = {}) {
  let connection;
  const finish = async (code, value) => {
    process.stdout.write(`${JSON.stringify(value)}\n`);
    try {
      await connection?.close();
    } catch {}
    process.exit(code);
  };
  const fail = (message) => finish(flaws.exitZeroOnError ? 0 : 1, { error: { message } });
  try {
    exactIds = flaws.bigIds === true;
    const input = JSON.parse(await readStdin());
    const pending = new Map();
    let nextId = 1;
    let failed;
    const events = {
      message(msg) {
        if (msg === null || typeof msg !== 'object') return;
        if ('method' in msg && 'id' in msg) {
          if (flaws.ignorePing) return;
          const reply =
            msg.method === 'ping'
              ? {
                  jsonrpc: '2.0',
                  id: msg.id,
                  result: flaws.pingMeta ? { _meta: { client: 'wirecheck-test' } } : {},
                }
              : {
                  jsonrpc: '2.0',
                  id: msg.id,
                  error: { code: -32601, message: `Method not found: ${msg.method}` },
                };
          connection?.send(flaws.batchNotifications ? [reply] : reply).catch(() => {});
          if (flaws.pingClobbers && msg.method === 'ping') {
            for (const [id, w] of pending)
              if (w.method === 'tools/call') {
                pending.delete(id);
                w.resolve({ content: [] });
              }
          }
          return;
        }
        if ('method' in msg) {
          if (flaws.failOnCancel && msg.method === 'notifications/cancelled') {
            events.fail(new ClientFailure(`the server cancelled request ${msg.params?.requestId}`));
            return;
          }
          if (msg.method === 'notifications/progress' || msg.method === 'notifications/cancelled') return;
          if (flaws.failOnUnknownNotification)
            events.fail(new ClientFailure(`unexpected notification ${msg.method}`));
          return;
        }
        const waiter = pending.get(msg.id);
        if (waiter === undefined) return;
        pending.delete(msg.id);
        if ('error' in msg)
          waiter.reject(new ClientFailure(`server error ${msg.error.code}: ${msg.error.message}`));
        else waiter.resolve(msg.result);
      },
      fail(error) {
        failed = error;
        for (const w of pending.values()) w.reject(error);
        pending.clear();
      },
      closed(reason) {
        if (flaws.hangOnClose) return;
        events.fail(new ClientFailure(reason));
      },
    };
    // The send of the latest request (its POST accepted over SSE), for a flaw that sends the next before the reply.
    let lastSent = Promise.resolve();
    const request = (method, params) => {
      if (failed) return Promise.reject(failed);
      const id = flaws.sameId
        ? 1
        : flaws.stringIds
          ? `req-${nextId++}`
          : flaws.bigIds
            ? 2n ** 53n + BigInt(nextId++ - 1)
            : nextId++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject, method });
        lastSent = connection.send({ jsonrpc: '2.0', id, method, params });
        lastSent.catch((e) => {
          pending.delete(id);
          reject(e);
        });
        if (flaws.callTimeoutMs && method === 'tools/call') {
          const ms = flaws.callTimeoutMs;
          setTimeout(() => {
            const why = `${method}: no reply within ${ms} ms`;
            if (flaws.timeoutAsResult) resolve({ content: [{ type: 'text', text: why }], isError: true });
            else reject(new ClientFailure(why));
          }, ms);
        }
      });
    };
    const notify = (method) =>
      connection.send(flaws.batchNotifications ? [{ jsonrpc: '2.0', method }] : { jsonrpc: '2.0', method });

    const transport = process.env.WIRECHECK_TRANSPORT;
    // 2024-11-05 has no Streamable HTTP: over it the client speaks 2025-03-26, the first revision that has it.
    const ownVersion = transport === 'http' ? '2025-03-26' : '2024-11-05';
    const params = {
      protocolVersion: flaws.protocolVersion ?? ownVersion,
      ...(flaws.noCapabilities ? {} : { capabilities: {} }),
      ...(flaws.noClientInfo ? {} : { clientInfo: { name: 'test-tool-client', version: '0.0.1' } }),
    };
    if (transport === 'stdio' && flaws.listInOwnSession) {
      await listInOwnSession(process.env.WIRECHECK_SERVER_CMD, params);
    }
    if (transport === 'stdio') connection = stdioConnection(process.env.WIRECHECK_SERVER_CMD, flaws, events);
    else if (transport === 'sse') {
      if (flaws.probeSse) {
        const quiet = { message() {}, fail() {}, closed() {} };
        const probe = await sseConnection(process.env.WIRECHECK_SERVER_URL, {}, quiet);
        await probe.send({
          jsonrpc: '2.0',
          id: 0,
          method: 'initialize',
          params: {
            protocolVersion: '2024-11-05',
            capabilities: {},
            clientInfo: { name: 'probe', version: '0' },
          },
        });
        probe.close();
      }
      connection = await sseConnection(process.env.WIRECHECK_SERVER_URL, flaws, events);
    } else if (transport === 'http')
      connection = httpConnection(process.env.WIRECHECK_SERVER_URL, flaws, events, params);
    else throw new ClientFailure(`unknown WIRECHECK_TRANSPORT ${transport}`);

    const callParams = {
      name: input.tool,
      ...(flaws.dropArguments
        ? { arguments: {} }
        : input.arguments === undefined
          ? {}
          : { arguments: flaws.sortArgumentKeys ? sortedKeys(input.arguments) : input.arguments }),
    };
    let result;
    // Set once a flaw sent notifications/initialized out of the usual place.
    let alreadyInitialized = false;
    if (flaws.onlyNotifies) {
      await notify('notifications/initialized');
      throw new ClientFailure('the client is not configured to initialize');
    }
    if (flaws.discoverFirst === 'always' || (flaws.discoverFirst && input.arguments === undefined)) {
      await request('server/discover', {});
    }
    if (flaws.noAwait) {
      const init = request('initialize', params);
      await notify('notifications/initialized');
      const call = request('tools/call', callParams);
      await init;
      result = await call;
    } else {
      let listed;
      let initializedSent;
      const initializing = request('initialize', params);
      // Over Streamable HTTP the POST of initialize ends with its answer: waiting for it would
      // leave nothing early. A while after the POST began, the early message goes out; when the
      // answer is late (replies 1.5 s late) it has no session id yet, and the mock refuses it.
      if (flaws.pipelineList || flaws.initializedEarly)
        await (transport === 'http' ? new Promise((r) => setTimeout(r, 300)) : lastSent.catch(() => {}));
      if (flaws.pipelineList) listed = request('tools/list', {});
      if (flaws.initializedEarly) initializedSent = notify('notifications/initialized');
      // Awaited once the initialize result came: a refusal before that must not end the process unreported.
      listed?.catch(() => {});
      initializedSent?.catch(() => {});
      const init = await initializing;
      if (listed !== undefined) {
        await notify('notifications/initialized');
        await listed;
        alreadyInitialized = true;
      }
      if (initializedSent !== undefined) {
        await initializedSent;
        alreadyInitialized = true;
      }
      const speaks = flaws.speaks ?? [ownVersion];
      if (!flaws.ignoreVersion && !speaks.includes(init?.protocolVersion)) {
        throw new ClientFailure(
          `the server answered protocol version ${JSON.stringify(init?.protocolVersion)}, this client speaks ${speaks.join(', ')}`,
        );
      }
      if (flaws.versionHeader !== undefined) {
        flaws.headerVersion =
          flaws.versionHeader === 'negotiated' ? init?.protocolVersion : params.protocolVersion;
      }
    }
    if (flaws.noAwait) {
      // done above
    } else if (flaws.callBeforeInitialized) {
      const call = request('tools/call', callParams);
      await notify('notifications/initialized');
      result = await call;
    } else {
      const initialized =
        flaws.noInitialized || alreadyInitialized ? undefined : notify('notifications/initialized');
      // Unless overlapping on purpose, the next request waits for the notification's POST to be
      // answered; overlapping, it waits only until the server has that POST's headers.
      const overlapping = flaws.overlapInitialized && transport !== 'stdio' ? trickling : undefined;
      if (flaws.overlapInitialized && transport !== 'stdio' && overlapping === undefined) {
        throw new ClientFailure('overlapInitialized: the notifications/initialized POST was not started');
      }
      if (overlapping === undefined) await initialized;
      else {
        // Its answer comes only after the call's: a refusal before then is reported at the end.
        initialized?.catch(() => {});
        await overlapping.begun;
        // The order is made by now; the pause is for the mock's measure of it, which places the
        // start of a request from two clock reads around its journaling work, so that a mock
        // preempted in between would see this lead shrink by the preemption's length.
        await new Promise((r) => setTimeout(r, OVERLAP_LEAD_MS));
      }
      if (flaws.neverCalls) throw new ClientFailure('the client is not configured to call tools');
      if (flaws.listsThenGivesUp || flaws.refusesUnlisted) {
        const listed = await request('tools/list', {});
        if (flaws.listsThenGivesUp) throw new ClientFailure('the client is not configured to call tools');
        if (!(listed?.tools ?? []).some((tool) => tool.name === input.tool)) {
          throw new ClientFailure(`unknown tool ${JSON.stringify(input.tool)}: the server does not list it`);
        }
      }
      while (flaws.floodPings) await request('ping', {});
      if (flaws.httpConcurrent && transport === 'http') {
        [, result] = await Promise.all([request('tools/list', {}), request('tools/call', callParams)]);
      } else result = await request('tools/call', callParams);
      overlapping?.finish();
      await initialized;
    }
    if (flaws.wrongResult) result = result.content?.[0]?.text ?? null;
    if (flaws.addIsErrorDefault && result && result.isError === undefined)
      result = { ...result, isError: false };
    if (flaws.dropFalseIsError && result && result.isError === false) {
      const { isError: _dropped, ...rest } = result;
      result = rest;
    }
    await finish(0, result);
  } catch (e) {
    await fail(e instanceof Error ? e.message : String(e));
  }
}
