// A small messages client written from the spec alone (plain fetch, no wirecheck code),
// with switchable flaws. Without flaws it is a second, independent conforming client:
// the suite must pass it. Each file next to this one turns on one flaw.

/**
 * @typedef {object} Flaws
 * @property {boolean} [crashOnPing] throw when a ping frame arrives
 * @property {boolean} [decodePerChunk] decode every network chunk on its own (breaks UTF-8 split across reads)
 * @property {boolean} [parseEachFragment] JSON.parse every partial_json fragment on arrival
 * @property {boolean} [exitZeroOn429] report a 429 with exit status 0
 * @property {boolean} [bearerAuth] send Authorization: Bearer instead of x-api-key
 * @property {boolean} [sendWithoutKey] send the request even when no key is set
 * @property {boolean} [omitKeyHeader] check that a key is set, then send no key header at all
 * @property {boolean} [rateLimitAsStatus] report a 429 with kind "status"
 * @property {boolean} [acceptTruncated] print whatever was accumulated when the stream ends early
 * @property {boolean} [ignoreStreamFlag] always ask for a buffered reply
 */

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
function parseSse(text) {
  const frames = [];
  let event;
  let data = [];
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  for (const line of body.split(/\r\n|\r|\n/)) {
    if (line === '') {
      if (data.length > 0) frames.push({ event, data: data.join('\n') });
      event = undefined;
      data = [];
      continue;
    }
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  return frames;
}

async function readBody(response, flaws) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
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

function accumulate(frames, flaws) {
  let message;
  let stopped = false;
  const json = new Map();
  for (const { event, data } of frames) {
    let ev;
    try {
      ev = JSON.parse(data);
    } catch (error) {
      throw new ClientFailure('stream', `frame data is not JSON: ${error.message}`);
    }
    if (event !== ev.type)
      throw new ClientFailure('stream', `event ${event} carries data of type ${ev.type}`);
    switch (ev.type) {
      case 'ping':
        if (flaws.crashOnPing) throw new TypeError('unexpected ping');
        break;
      case 'error':
        throw new ClientFailure('stream', `error event: ${ev.error?.type}: ${ev.error?.message}`);
      case 'message_start':
        message = { ...ev.message, content: [] };
        break;
      case 'content_block_start':
        message.content[ev.index] = { ...ev.content_block };
        if (ev.content_block.type === 'tool_use') json.set(ev.index, '');
        break;
      case 'content_block_delta': {
        const block = message.content[ev.index];
        if (ev.delta.type === 'text_delta') block.text += ev.delta.text;
        else if (flaws.parseEachFragment)
          block.input = { ...block.input, ...JSON.parse(ev.delta.partial_json) };
        else json.set(ev.index, json.get(ev.index) + ev.delta.partial_json);
        break;
      }
      case 'content_block_stop': {
        const text = json.get(ev.index);
        if (text !== undefined && !flaws.parseEachFragment)
          message.content[ev.index].input = text === '' ? {} : JSON.parse(text);
        break;
      }
      case 'message_delta':
        message.stop_reason = ev.delta.stop_reason;
        message.stop_sequence = ev.delta.stop_sequence;
        message.usage = { ...message.usage, ...ev.usage };
        break;
      case 'message_stop':
        stopped = true;
        break;
      default:
        break;
    }
  }
  if (!stopped && !flaws.acceptTruncated)
    throw new ClientFailure('stream', 'the stream ended before message_stop');
  if (!message) throw new ClientFailure('stream', 'no message_start');
  return message;
}

async function request(flaws) {
  const body = JSON.parse(await readStdin());
  if (flaws.ignoreStreamFlag) delete body.stream;
  const key = process.env.WIRECHECK_API_KEY || process.env.ANTHROPIC_API_KEY;
  if (!key && !flaws.sendWithoutKey)
    throw new ClientFailure('missing_api_key', 'no API key in the environment');
  const headers = { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' };
  if (key && !flaws.omitKeyHeader) {
    if (flaws.bearerAuth) headers.authorization = `Bearer ${key}`;
    else headers['x-api-key'] = key;
  }
  const base = process.env.WIRECHECK_BASE_URL || process.env.ANTHROPIC_BASE_URL;
  let response;
  try {
    response = await fetch(`${base}/v1/messages`, { method: 'POST', headers, body: JSON.stringify(body) });
  } catch (error) {
    throw new ClientFailure('connection', `${error.message}: ${error.cause?.code ?? ''}`);
  }
  if (!response.ok) {
    const text = await response.text();
    const kind = response.status === 429 && !flaws.rateLimitAsStatus ? 'rate_limit' : 'status';
    throw new ClientFailure(kind, text, response.status);
  }
  const { text, broken } = await readBody(response, flaws);
  if (body.stream !== true) {
    if (broken) throw new ClientFailure('connection', `body broke off: ${broken.message}`);
    return JSON.parse(text);
  }
  const message = accumulate(parseSse(text), flaws);
  if (broken && !flaws.acceptTruncated)
    throw new ClientFailure('stream', `stream broke off: ${broken.message}`);
  return message;
}

/** Run the client with `flaws`; prints and sets the exit status as the target contract says. */
export async function main(flaws = {}) {
  try {
    const message = await request(flaws);
    process.stdout.write(`${JSON.stringify(message)}\n`);
    process.exitCode = 0;
  } catch (error) {
    if (!(error instanceof ClientFailure)) throw error;
    const printed = { error: { kind: error.kind, status: error.status, message: error.message } };
    process.stdout.write(`${JSON.stringify(printed)}\n`);
    process.exitCode = flaws.exitZeroOn429 && error.status === 429 ? 0 : 1;
  }
}
