// A small messages client written from the spec alone (plain fetch, no wirecheck code),
// with switchable flaws. Without flaws it is a second, independent conforming client:
// the suite must pass it. Each file next to this one turns on one flaw.

import zlib from 'node:zlib';

/**
 * @typedef {object} Flaws
 * @property {boolean} [crashOnPing] throw when a ping frame arrives
 * @property {boolean} [crashOnEarlyPing] throw when a ping frame arrives before message_start
 * @property {boolean} [strictEvents] throw on an event name the spec does not list
 * @property {string} [versionValue] the anthropic-version header's value (default the spec's 2023-06-01)
 * @property {boolean} [stopReasonAtMessageStop] keep message_delta's stop reason until message_stop, and
 *   print a stream that ends cleanly after message_delta without it (stop_reason null)
 * @property {number} [idleTimeoutMs] give up on a body when no byte arrived for this long (without it, a
 *   silent stream is waited on forever)
 * @property {'at-once' | 'after-retry-after'} [retry429] retry a 429 once: at once, or after its retry-after
 * @property {boolean} [lastDataLineOnly] keep only the last data: line of a frame (SSE joins them with a newline)
 * @property {boolean} [nonJsonBodyAsStream] report a buffered body that is not JSON as kind stream
 * @property {boolean} [countTokensFirst] equivalent: POST /v1/messages/count_tokens (another operation
 *   of the real API) before each messages request, going on whatever it answers
 * @property {boolean} [decodePerChunk] decode every network chunk on its own (breaks UTF-8 split across reads)
 * @property {boolean} [parseEachFragment] JSON.parse every partial_json fragment on arrival
 * @property {boolean} [exitZeroOn429] report a 429 with exit status 0
 * @property {boolean} [bearerAuth] send Authorization: Bearer instead of x-api-key
 * @property {boolean} [sendWithoutKey] send the request even when no key is set
 * @property {boolean} [omitKeyHeader] check that a key is set, then send no key header at all
 * @property {boolean} [noVersionHeader] send no version header (neither service-version nor anthropic-version)
 * @property {boolean} [rateLimitAsStatus] report a 429 with kind "status"
 * @property {boolean} [acceptTruncated] print whatever was accumulated when the stream ends early
 * @property {boolean} [ignoreStreamFlag] always ask for a buffered reply
 * @property {boolean} [omitDefaults] leave out is_error: false and stream: false, and a bash input's restart: false in what it prints, as a typed model does (equivalent: must pass)
 * @property {boolean} [extraToolField] add a field to every tool definition
 * @property {boolean} [nullUnsetFields] equivalent: write unset fields the API's schema makes nullable as
 *   null (type: null on a custom tool, cache_control: null on every tool), as a typed model does
 * @property {boolean} [renameModel] send another model than stdin's
 * @property {number} [temperature] add this temperature to every request (above 1 the real API refuses it)
 * @property {boolean} [lenientToolJson] complete tool input JSON cut short, or use {} when it is not JSON
 * @property {boolean} [dropFramesWithoutEvent] skip frames that have no event: line, as the official SDK does
 * @property {boolean} [skipTypeMismatch] skip frames whose data type is not the event name
 * @property {boolean} [streamErrorsAsStream] report a non-200 answer to a streamed request as kind stream
 * @property {boolean} [otherClientErrorsAsConnection] report 403, 404 and 413 as kind connection
 * @property {boolean} [retryAfterAsRateLimit] report any status that came with retry-after as kind rate_limit
 * @property {boolean} [strictBlocks] fail on a content block or delta type the spec does not list
 * @property {boolean} [strictStopReason] fail on a stop reason the spec does not list
 * @property {boolean} [sumUsage] add every number of message_delta's usage into output_tokens
 * @property {boolean} [noLoneCr] break lines at LF and CRLF only (a lone CR is not a line break)
 * @property {boolean} [addStartOutputTokens] add message_start's output_tokens to message_delta's (as LangChain's
 *   usage metadata does), so every stream's count is off
 * @property {boolean} [noToolStreams] fail with kind stream on any input_json_delta (no streamed tool input)
 * @property {boolean} [retryForever] retry a request answered 5xx at once, without end
 * @property {string} [path] post to this path of the base URL (default /v1/messages)
 * @property {boolean} [pathOnlyWithoutTools] use `path` only for a request that offers no tools
 * @property {boolean} [refuseStreamedTools] send nothing for a stream: true request that offers tools (fail with kind stream)
 * @property {boolean} [noContentType] set no content-type header, so fetch labels the string body
 *   text/plain;charset=UTF-8
 * @property {boolean} [bufferedWithoutUsage] print a buffered reply rebuilt from the fields it shows, leaving out usage
 * @property {boolean} [commentsAsData] read the text of a comment line (`: ...`) as a data: line
 * @property {boolean} [skipNonJsonFrames] skip a frame whose data is not JSON and go on with the stream
 * @property {boolean} [errorEventEndsStream] take an error event after message_start as the end of the
 *   stream and print the message accumulated so far
 * @property {boolean} [ignoreErrorEvents] skip error events as if they were events it does not know
 * @property {boolean} [lenientStop] equivalent: print a stream that ends cleanly after message_delta without
 *   message_stop (the message is whole then), as the Python SDK does
 * @property {string} [contentEncoding] send the body with this Content-Encoding: gzip, deflate and br
 *   compress it (equivalent, if the real API takes them: not verified); any other leaves it as it is
 * @property {boolean} [badRequestKindFromBody] report a 400 with the body's error type (invalid_request_error) as kind
 * @property {boolean} [authErrorAsMissingKey] report a 401 (the key refused) as kind missing_api_key
 * @property {boolean} [overloadedAsRateLimit] report a 529 (overloaded) as kind rate_limit
 * @property {boolean} [firstErrorEventAsStatus] report an error event before message_start as an HTTP error
 *   (kind status, with the status its error type would have had: overloaded_error 529), as one
 *   third-party client does
 */

/** The HTTP status an error type comes with (the real API's error table). */
const STATUS_OF_ERROR_TYPE = {
  invalid_request_error: 400,
  authentication_error: 401,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  overloaded_error: 529,
};

class ClientFailure extends Error {
  constructor(kind, message, status) {
    super(message);
    this.kind = kind;
    this.status = status;
  }
}

async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/** SSE: bytes to frames ({event, data}); a frame not closed by a blank line is dropped. */
function parseSse(text, flaws) {
  const frames = [];
  let event;
  let data = [];
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  for (const line of body.split(flaws.noLoneCr ? /\r?\n/ : /\r\n|\r|\n/)) {
    if (line === '') {
      if (data.length > 0) frames.push({ event, data: data.join('\n') });
      event = undefined;
      data = [];
      continue;
    }
    if (line.startsWith(':')) {
      if (flaws.commentsAsData) data.push(line.slice(1).trimStart());
      continue;
    }
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') event = value;
    else if (field === 'data') {
      if (flaws.lastDataLineOnly) data = [];
      data.push(value);
    }
  }
  return frames;
}

/** One read of `reader`; past `idleMs` without a byte, the body is cancelled and the read throws. */
async function readWithin(reader, idleMs) {
  if (idleMs === undefined) return reader.read();
  let timer;
  const idle = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no byte for ${idleMs} ms`)), idleMs);
  });
  try {
    return await Promise.race([reader.read(), idle]);
  } catch (error) {
    reader.cancel().catch(() => {});
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

async function readBody(response, flaws) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    for (;;) {
      const { done, value } = await readWithin(reader, flaws.idleTimeoutMs);
      if (done) break;
      text += flaws.decodePerChunk
        ? new TextDecoder().decode(value)
        : decoder.decode(value, { stream: true });
    }
  } catch (error) {
    return { text, broken: error };
  }
  return { text: text + decoder.decode(), broken: undefined };
}

const KNOWN_STOP_REASONS = ['end_turn', 'max_tokens', 'stop_sequence', 'tool_use'];
const KNOWN_EVENTS = [
  'message_start',
  'content_block_start',
  'content_block_delta',
  'content_block_stop',
  'message_delta',
  'message_stop',
  'ping',
  'error',
];

/** A flawed client's idea of JSON cut short: close what is open. */
function completeJson(text) {
  let open = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') open += '}';
    else if (c === '[') open += ']';
    else if (c === '}' || c === ']') open = open.slice(0, -1);
  }
  try {
    return JSON.parse(text + (inString ? '"' : '') + [...open].reverse().join(''));
  } catch {
    return {};
  }
}

function accumulate(frames, flaws) {
  let message;
  let startOutputTokens = 0;
  let stopped = false;
  let pendingStop;
  let sawDelta = false;
  const json = new Map();
  for (const { event, data } of frames) {
    let ev;
    try {
      ev = JSON.parse(data);
    } catch (error) {
      if (flaws.skipNonJsonFrames) continue;
      throw new ClientFailure('stream', `frame data is not JSON: ${error.message}`);
    }
    if (event === undefined && flaws.dropFramesWithoutEvent) continue;
    if (event !== ev.type && flaws.skipTypeMismatch) continue;
    if (event !== ev.type)
      throw new ClientFailure('stream', `event ${event} carries data of type ${ev.type}`);
    if (flaws.strictEvents && !KNOWN_EVENTS.includes(event)) throw new TypeError(`unknown event ${event}`);
    if (
      flaws.strictBlocks &&
      ev.type === 'content_block_start' &&
      !['text', 'tool_use'].includes(ev.content_block.type)
    )
      throw new TypeError(`unknown block type ${ev.content_block.type}`);
    if (
      flaws.strictBlocks &&
      ev.type === 'content_block_delta' &&
      !['text_delta', 'input_json_delta'].includes(ev.delta.type)
    )
      throw new TypeError(`unknown delta type ${ev.delta.type}`);
    if (
      flaws.strictStopReason &&
      ev.type === 'message_delta' &&
      !KNOWN_STOP_REASONS.includes(ev.delta.stop_reason)
    )
      throw new TypeError(`unknown stop reason ${ev.delta.stop_reason}`);
    if (flaws.noToolStreams && ev.type === 'content_block_delta' && ev.delta.type === 'input_json_delta')
      throw new ClientFailure('stream', 'streamed tool input is not supported');
    switch (ev.type) {
      case 'ping':
        if (flaws.crashOnPing) throw new TypeError('unexpected ping');
        if (flaws.crashOnEarlyPing && !message) throw new TypeError('a ping before message_start');
        break;
      case 'error':
        if (flaws.ignoreErrorEvents) break;
        if (flaws.errorEventEndsStream && message) return message;
        if (flaws.firstErrorEventAsStatus && !message) {
          const status = STATUS_OF_ERROR_TYPE[ev.error?.type] ?? 500;
          throw new ClientFailure(status === 429 ? 'rate_limit' : 'status', JSON.stringify(ev), status);
        }
        throw new ClientFailure('stream', `error event: ${ev.error?.type}: ${ev.error?.message}`);
      case 'message_start':
        message = { ...ev.message, content: [] };
        startOutputTokens = ev.message.usage?.output_tokens ?? 0;
        break;
      case 'content_block_start':
        message.content[ev.index] = { ...ev.content_block };
        if (ev.content_block.type === 'tool_use') json.set(ev.index, '');
        break;
      case 'content_block_delta': {
        const block = message.content[ev.index];
        if (ev.delta.type === 'text_delta') block.text += ev.delta.text;
        else if (ev.delta.type !== 'input_json_delta')
          break; // a delta type it does not know
        else if (flaws.parseEachFragment)
          block.input = { ...block.input, ...JSON.parse(ev.delta.partial_json) };
        else json.set(ev.index, json.get(ev.index) + ev.delta.partial_json);
        break;
      }
      case 'content_block_stop': {
        const text = json.get(ev.index);
        if (text !== undefined && !flaws.parseEachFragment) {
          try {
            message.content[ev.index].input = text === '' ? {} : JSON.parse(text);
          } catch (error) {
            if (flaws.lenientToolJson) message.content[ev.index].input = completeJson(text);
            else
              throw new ClientFailure(
                'stream',
                `tool input of block ${ev.index} is not JSON: ${error.message}`,
              );
          }
        }
        break;
      }
      case 'message_delta':
        sawDelta = true;
        if (flaws.stopReasonAtMessageStop) pendingStop = ev.delta;
        else {
          message.stop_reason = ev.delta.stop_reason;
          message.stop_sequence = ev.delta.stop_sequence;
        }
        message.usage = { ...message.usage, ...ev.usage };
        if (flaws.addStartOutputTokens) message.usage.output_tokens += startOutputTokens;
        if (flaws.sumUsage) {
          const numbers = Object.values(ev.usage).filter((v) => typeof v === 'number');
          message.usage.output_tokens = numbers.reduce((a, b) => a + b, 0);
        }
        break;
      case 'message_stop':
        stopped = true;
        if (pendingStop) {
          message.stop_reason = pendingStop.stop_reason;
          message.stop_sequence = pendingStop.stop_sequence;
        }
        break;
      default:
        break;
    }
  }
  if (
    !stopped &&
    !flaws.acceptTruncated &&
    !(flaws.stopReasonAtMessageStop && pendingStop) &&
    !(flaws.lenientStop && sawDelta)
  )
    throw new ClientFailure('stream', 'the stream ended before message_stop');
  if (!message) throw new ClientFailure('stream', 'no message_start');
  return message;
}

const ENCODERS = { gzip: zlib.gzipSync, deflate: zlib.deflateSync, br: zlib.brotliCompressSync };

/** The request body as sent, compressed as `flaws.contentEncoding` says (and that header set). */
function encoded(body, headers, flaws) {
  const text = JSON.stringify(body);
  if (flaws.contentEncoding === undefined) return text;
  headers['content-encoding'] = flaws.contentEncoding;
  const encode = ENCODERS[flaws.contentEncoding];
  return encode === undefined ? text : encode(Buffer.from(text));
}

async function request(flaws) {
  const body = JSON.parse(await readStdin());
  if (flaws.refuseStreamedTools && body.stream === true && body.tools?.length > 0)
    throw new ClientFailure('stream', 'streaming with tools is not supported');
  if (flaws.ignoreStreamFlag) delete body.stream;
  if (flaws.omitDefaults) {
    if (body.stream === false) delete body.stream;
    for (const turn of body.messages)
      if (Array.isArray(turn.content))
        for (const block of turn.content) if (block.is_error === false) delete block.is_error;
  }
  if (flaws.extraToolField)
    body.tools = body.tools?.map((t) => ({ ...t, cache_control: { type: 'ephemeral' } }));
  if (flaws.nullUnsetFields) body.tools = body.tools?.map((t) => ({ type: null, cache_control: null, ...t }));
  if (flaws.renameModel) body.model = `${body.model}-latest`;
  if (flaws.temperature !== undefined) body.temperature = flaws.temperature;
  const key = process.env.WIRECHECK_API_KEY || process.env.ANTHROPIC_API_KEY;
  if (!key && !flaws.sendWithoutKey)
    throw new ClientFailure('missing_api_key', 'no API key in the environment');
  const headers = {
    'content-type': 'application/json',
    'anthropic-version': flaws.versionValue ?? '2023-06-01',
  };
  if (flaws.noVersionHeader) delete headers['anthropic-version'];
  if (flaws.noContentType) delete headers['content-type'];
  if (key && !flaws.omitKeyHeader) {
    if (flaws.bearerAuth) headers.authorization = `Bearer ${key}`;
    else headers['x-api-key'] = key;
  }
  const base = process.env.WIRECHECK_BASE_URL || process.env.ANTHROPIC_BASE_URL;
  const misroute = flaws.path !== undefined && !(flaws.pathOnlyWithoutTools && body.tools?.length > 0);
  const path = misroute ? flaws.path : '/v1/messages';
  if (flaws.countTokensFirst) {
    const { model, messages, tools } = body;
    const count = await fetch(`${base}/v1/messages/count_tokens`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ model, messages, ...(tools && { tools }) }),
    }).catch(() => undefined);
    await count?.arrayBuffer();
  }
  let response;
  let retried429 = false;
  for (;;) {
    try {
      response = await fetch(`${base}${path}`, {
        method: 'POST',
        headers,
        body: encoded(body, headers, flaws),
      });
    } catch (error) {
      throw new ClientFailure('connection', `${error.message}: ${error.cause?.code ?? ''}`);
    }
    const retry429 = flaws.retry429 !== undefined && response.status === 429 && !retried429;
    if (!(flaws.retryForever && response.status >= 500) && !retry429) break;
    await response.arrayBuffer();
    if (retry429) {
      retried429 = true;
      const seconds = Number(response.headers.get('retry-after') ?? 0);
      if (flaws.retry429 === 'after-retry-after') await new Promise((r) => setTimeout(r, seconds * 1000));
    }
  }
  if (!response.ok) {
    const text = await response.text();
    let kind = response.status === 429 && !flaws.rateLimitAsStatus ? 'rate_limit' : 'status';
    if (flaws.streamErrorsAsStream && body.stream === true) kind = 'stream';
    if (flaws.otherClientErrorsAsConnection && [403, 404, 413].includes(response.status)) kind = 'connection';
    if (flaws.retryAfterAsRateLimit && response.headers.has('retry-after')) kind = 'rate_limit';
    if (flaws.badRequestKindFromBody && response.status === 400) {
      try {
        kind = JSON.parse(text).error.type;
      } catch {}
    }
    if (flaws.authErrorAsMissingKey && response.status === 401) kind = 'missing_api_key';
    if (flaws.overloadedAsRateLimit && response.status === 529) kind = 'rate_limit';
    throw new ClientFailure(kind, text, response.status);
  }
  const { text, broken } = await readBody(response, flaws);
  if (body.stream !== true) {
    if (broken) throw new ClientFailure('connection', `body broke off: ${broken.message}`);
    let message;
    try {
      message = JSON.parse(text);
    } catch (error) {
      if (flaws.nonJsonBodyAsStream)
        throw new ClientFailure('stream', `the body is not JSON: ${error.message}`);
      throw error;
    }
    if (flaws.strictBlocks && message.content.some((b) => !['text', 'tool_use'].includes(b.type)))
      throw new TypeError('unknown block type');
    if (flaws.strictStopReason && !KNOWN_STOP_REASONS.includes(message.stop_reason))
      throw new TypeError(`unknown stop reason ${message.stop_reason}`);
    if (flaws.bufferedWithoutUsage) {
      const { id, type, role, model, content, stop_reason, stop_sequence } = message;
      return { id, type, role, model, content, stop_reason, stop_sequence };
    }
    return message;
  }
  const message = accumulate(parseSse(text, flaws), flaws);
  if (broken && !flaws.acceptTruncated)
    throw new ClientFailure('stream', `stream broke off: ${broken.message}`);
  return message;
}

/** Run the client with `flaws`; prints and sets the exit status as the target contract says. */
export async function main(flaws = {}) {
  try {
    const message = await request(flaws);
    if (flaws.omitDefaults)
      for (const block of message.content ?? [])
        if (block.type === 'tool_use' && block.name === 'bash' && block.input?.restart === false)
          delete block.input.restart;
    process.stdout.write(`${JSON.stringify(message)}\n`);
    process.exitCode = 0;
  } catch (error) {
    if (!(error instanceof ClientFailure)) throw error;
    const printed = { error: { kind: error.kind, status: error.status, message: error.message } };
    process.stdout.write(`${JSON.stringify(printed)}\n`);
    process.exitCode = flaws.exitZeroOn429 && error.status === 429 ? 0 : 1;
  }
}
