import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type ApiErrorType,
  errorBody,
  eventsOfMessage,
  type Message,
  MessageRequest,
  type StreamEvent,
  type Turn,
} from '../../../src/protocol/messages/index.js';
import { encodeEvent, encodeFrame } from '../../../src/protocol/sse/index.js';

/**
 * Ways to break the fake, one per rule family the suite checks. The compliant fake has
 * none; each broken variant has one.
 */
export const BREAKS = [
  'buffered-content-type', // buffered replies say text/plain
  'stream-content-type', // streams say application/json
  'event-name-mismatch', // content_block_delta frames are named `event: delta`
  'deltas-not-json', // content_block_delta frames carry a data line that is not JSON
  'out-of-order', // the last content_block_stop comes after message_delta
  'usage-in-delta', // every content_block_delta carries usage
  'invalid-partial-json', // the last input_json_delta fragment loses its closing brace
  'end-turn-with-tool-use', // a reply with a tool_use block says end_turn
  'buffered-shape', // buffered replies have role "bot"
  'accepts-missing-key', // a request without a key is served
  'missing-key-403', // a request without a key gets 403 instead of 401
  'accepts-invalid-body', // an invalid body gets 200 and a message
  'error-body-without-type', // error bodies lack the top-level "type": "error"
  'message-start-with-content', // message_start carries the finished content
  'never-tool-use', // the scripted model never calls a tool
  'unknown-event', // an extra `event: wirecheck_debug` frame
  'bad-ping', // the ping frame's data is {"type":"pong"}
  'no-request-id', // no request-id header
  'stream-input-tokens-differ', // streams count one more input token
  'rejects-tool-results', // any conversation with a tool_result gets 400
  'dies-after-abort', // streams stall after the first delta; the fake then answers 500 to everything
  'rejects-stream-false', // a body with "stream": false written out gets 400
  'stop-sequence-on-end-turn', // every reply says stop_sequence "###" whatever its stop reason
  'text-start-with-text', // a text block's content_block_start carries its first character
  'input-tokens-late', // message_start says input_tokens 0; message_delta carries the count
  'rejects-bash-20241022', // the older shell tool type gets 400
  'accepts-any-key', // any key is accepted (a missing one is still refused)
  'streams-without-key', // a stream: true request without a key is streamed anyway
  'requires-anthropic-version', // a request without anthropic-version gets 400
  'accepts-meaningless', // tool blocks in the wrong direction and unanswered tool_results are served
  'crashes-on-role-and-serves-missing-max-tokens', // 500 for a bad role, 200 for a missing max_tokens
  'x-request-id', // the request id header is named X-Request-Id (equivalent: must pass)
  'forward-compatible', // thinking blocks, citations_delta, new stop reasons, usage counters (equivalent)
  'tool-start-without-input', // a tool_use content_block_start without `input` (equivalent: must pass)
  'streams-forever', // a stream: true request gets message_start, then a ping every 20 ms, forever
  'html-everything', // every request gets 200 text/html (a web page at the service's URL)
  'empty-streams', // a stream: true request gets 200 text/event-stream and no frame at all
  'unknown-model', // every request with the key gets 400: the model is not one it serves
  'buffered-for-stream', // a stream: true request gets the buffered JSON message (200 application/json)
  'tool-cut-by-max-tokens', // every tool_use reply is cut by max_tokens: input {} buffered, mid-JSON streamed (equivalent)
  'overloaded-streams', // every stream: true request gets 529 overloaded_error (retry-after 0.01 s): busy, not broken
  'api-error-mid-stream', // every stream ends after its first delta with event: error (api_error), then a ping: not broken
  'overloaded-mid-stream', // every stream ends after its first delta with event: error (overloaded_error): busy, not broken
  'tool-input-in-start', // a tool_use content_block_start carries the whole input, its one input_json_delta is empty
  'bash-input-not-string', // a bash tool_use input's `command` is an argv array (["echo", "x"]), not a string
  'invalid-422', // an invalid body is refused with 422 (invalid_request_error), not 400
  'invalid-wrong-error-type', // an invalid body is refused with 400, error type api_error
  'rejects-assistant-text', // a valid conversation with text in an assistant turn gets 400
] as const;
export type Break = (typeof BREAKS)[number];

export interface FakeServiceOptions {
  /** The key the fake accepts (as x-api-key or Bearer). */
  readonly apiKey: string;
  readonly breaks?: readonly Break[];
}

export interface FakeService {
  readonly baseUrl: string;
  /** Requests served, in arrival order (method, path, whether a key was sent, the headers). */
  readonly requests: { method: string; path: string; keyed: boolean; headers: IncomingHttpHeaders }[];
  close(): Promise<void>;
}

const TOOL_ASK = /Use the bash tool to run: ([^;]+)/;

function textOf(turn: Turn | undefined): string {
  if (!turn) return '';
  if (typeof turn.content === 'string') return turn.content;
  return turn.content
    .map((b) => {
      if (b.type === 'text') return b.text as string;
      if (b.type === 'tool_result') return typeof b.content === 'string' ? b.content : '';
      return '';
    })
    .join(' ');
}

/** Blocks that may appear in the other direction only ("Content blocks": direction), and unanswered results. */
function directionProblem(request: MessageRequest): string | undefined {
  let asked = new Set<string>();
  for (const [i, turn] of request.messages.entries()) {
    if (typeof turn.content === 'string') {
      asked = new Set();
      continue;
    }
    const uses = new Set<string>();
    for (const block of turn.content) {
      if (block.type === 'tool_result' && turn.role !== 'user')
        return `messages.${i}: tool_result in an assistant turn`;
      if (block.type === 'tool_use' && turn.role !== 'assistant')
        return `messages.${i}: tool_use in a user turn`;
      if (block.type === 'tool_result' && !asked.has(block.tool_use_id as string))
        return `messages.${i}: tool_result for ${block.tool_use_id}, which no tool_use asked for`;
      if (block.type === 'tool_use') uses.add(block.id as string);
    }
    asked = uses;
  }
  return undefined;
}

/** The scripted model: a tool_use when bash is offered and the last user text asks to run something, else an echo. */
function reply(request: MessageRequest, n: number, breaks: ReadonlySet<Break>, streamed: boolean): Message {
  const last = request.messages.at(-1);
  const lastText = textOf(last);
  const bash = request.tools?.some((t) => t.name === 'bash') ?? false;
  const ask = typeof last?.content === 'string' ? TOOL_ASK.exec(last.content) : null;
  const inputTokens =
    Math.ceil(JSON.stringify({ m: request.messages, t: request.tools ?? [] }).length / 4) +
    (streamed && breaks.has('stream-input-tokens-differ') ? 1 : 0);
  const base = {
    id: `msg_fake_${n}`,
    type: 'message' as const,
    role: 'assistant' as const,
    model: request.model,
  };
  if (bash && ask && !breaks.has('never-tool-use')) {
    const cut = breaks.has('tool-cut-by-max-tokens');
    return {
      ...base,
      content: [
        { type: 'text', text: 'Running it.' },
        {
          type: 'tool_use',
          id: `toolu_fake_${n}`,
          name: 'bash',
          input:
            cut && !streamed
              ? {}
              : {
                  command: breaks.has('bash-input-not-string') ? ask[1]!.trim().split(/\s+/) : ask[1]!.trim(),
                },
        },
      ],
      stop_reason: cut ? 'max_tokens' : breaks.has('end-turn-with-tool-use') ? 'end_turn' : 'tool_use',
      stop_sequence: breaks.has('stop-sequence-on-end-turn') ? '###' : null,
      usage: { input_tokens: inputTokens, output_tokens: 12 },
    };
  }
  const chars = Array.from(`You said: ${lastText}`);
  const cut = chars.length > request.max_tokens * 4;
  const text = chars.slice(0, request.max_tokens * 4).join('');
  const done = breaks.has('forward-compatible') ? 'refusal' : 'end_turn';
  return {
    ...base,
    content: [{ type: 'text', text }],
    stop_reason: cut ? 'max_tokens' : done,
    stop_sequence: breaks.has('stop-sequence-on-end-turn') ? '###' : null,
    usage: { input_tokens: inputTokens, output_tokens: Math.ceil(Array.from(text).length / 4) },
  };
}

function every(step: number, length: number): number[] {
  const cuts: number[] = [];
  for (let i = step; i < length; i += step) cuts.push(i);
  return cuts;
}

/** The stream of a message: the canonical events, then whatever the breaks change, as SSE text. */
function streamOf(message: Message, breaks: ReadonlySet<Break>): string[] {
  const splits = message.content.map((b) =>
    b.type === 'text' ? every(4, b.text.length) : every(5, JSON.stringify(b.input).length),
  );
  const events: Record<string, unknown>[] = eventsOfMessage(message, splits).map((e) => ({ ...e }));
  events.splice(1, 0, { type: 'ping' });
  if (breaks.has('text-start-with-text')) {
    for (const [i, e] of events.entries()) {
      const block = e.content_block as { type?: string } | undefined;
      const next = events[i + 1] as { delta?: { type?: string; text?: string } } | undefined;
      if (e.type !== 'content_block_start' || block?.type !== 'text' || next?.delta?.type !== 'text_delta')
        continue;
      const first = Array.from(next.delta.text ?? '')[0] ?? '';
      e.content_block = { ...block, text: first };
      next.delta = { ...next.delta, text: (next.delta.text ?? '').slice(first.length) };
    }
  }
  if (breaks.has('input-tokens-late')) {
    const start = events[0] as { message: { usage: Record<string, unknown> } };
    const input = start.message.usage.input_tokens;
    events[0] = {
      ...start,
      message: { ...start.message, usage: { ...start.message.usage, input_tokens: 0 } },
    };
    const delta = events.find((e) => e.type === 'message_delta') as { usage: Record<string, unknown> };
    delta.usage = { ...delta.usage, input_tokens: input };
  }
  if (breaks.has('tool-start-without-input')) {
    for (const e of events) {
      const block = e.content_block as { type?: string; input?: unknown } | undefined;
      if (e.type === 'content_block_start' && block?.type === 'tool_use') {
        const { input: _, ...rest } = block;
        e.content_block = rest;
      }
    }
  }
  if (breaks.has('forward-compatible')) {
    // A thinking block first (its own deltas), citations on text, more usage counters.
    for (const e of events) {
      if (typeof e.index === 'number') e.index += 1;
      if (e.type === 'message_delta')
        e.usage = {
          ...(e.usage as object),
          cache_read_input_tokens: 3,
          server_tool_use: { web_search_requests: 0 },
        };
    }
    const textDelta = events.findIndex(
      (e) => (e.delta as { type?: string } | undefined)?.type === 'text_delta',
    );
    if (textDelta >= 0) {
      events.splice(textDelta, 0, {
        type: 'content_block_delta',
        index: events[textDelta]!.index,
        delta: { type: 'citations_delta', citation: { type: 'char_location', cited_text: 'x' } },
      });
    }
    events.splice(
      2,
      0,
      {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'thinking', thinking: '', signature: '' },
      },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Let me see.' } },
      {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'signature_delta', signature: 'c2lnbmF0dXJl' },
      },
      { type: 'content_block_stop', index: 0 },
    );
  }
  if (breaks.has('unknown-event')) events.splice(2, 0, { type: 'wirecheck_debug' });
  if (breaks.has('message-start-with-content')) {
    const start = events[0] as StreamEvent & { message: Record<string, unknown> };
    events[0] = { ...start, message: { ...start.message, content: message.content } };
  }
  if (breaks.has('usage-in-delta')) {
    for (const e of events) if (e.type === 'content_block_delta') e.usage = { output_tokens: 1 };
  }
  if (breaks.has('invalid-partial-json') || breaks.has('tool-cut-by-max-tokens')) {
    const fragments = events.filter(
      (e) => e.type === 'content_block_delta' && (e.delta as { type: string }).type === 'input_json_delta',
    );
    const lastFragment = fragments.at(-1);
    if (lastFragment) {
      const delta = lastFragment.delta as { partial_json: string };
      lastFragment.delta = { ...delta, partial_json: delta.partial_json.slice(0, -1) };
    }
  }
  if (breaks.has('tool-input-in-start')) {
    // The input whole in the block's start, one empty fragment after it (stream.order wants one delta).
    const tool = message.content.findIndex((b) => b.type === 'tool_use');
    const start = events.find((e) => e.type === 'content_block_start' && e.index === tool);
    if (start !== undefined) {
      start.content_block = message.content[tool];
      const isFragment = (e: Record<string, unknown>) => e.type === 'content_block_delta' && e.index === tool;
      const first = events.findIndex(isFragment);
      const fragments = events.filter(isFragment).length;
      events.splice(first, fragments, {
        type: 'content_block_delta',
        index: tool,
        delta: { type: 'input_json_delta', partial_json: '' },
      });
    }
  }
  if (breaks.has('out-of-order')) {
    const stop = events.findLastIndex((e) => e.type === 'content_block_stop');
    const [moved] = events.splice(stop, 1);
    events.splice(events.length - 1, 0, moved!);
  }
  if (breaks.has('api-error-mid-stream') || breaks.has('overloaded-mid-stream')) {
    // The real API ends a stream it cannot finish so; a ping may still come after (the spec: anywhere).
    const cut = events.findIndex((e) => e.type === 'content_block_delta') + 1;
    const error = breaks.has('api-error-mid-stream')
      ? [{ type: 'error', error: { type: 'api_error', message: 'Internal server error' } }, { type: 'ping' }]
      : [{ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }];
    events.splice(cut, events.length - cut, ...error);
  }
  return events.map((e) => {
    if (breaks.has('event-name-mismatch') && e.type === 'content_block_delta') {
      return encodeFrame('delta', JSON.stringify(e));
    }
    if (breaks.has('deltas-not-json') && e.type === 'content_block_delta') {
      return encodeFrame('content_block_delta', 'content_block_delta');
    }
    if (breaks.has('bad-ping') && e.type === 'ping') return encodeFrame('ping', '{"type":"pong"}');
    return encodeEvent(e as { type: string });
  });
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Start the fake on 127.0.0.1, port 0. */
export async function startFakeService(options: FakeServiceOptions): Promise<FakeService> {
  const breaks = new Set(options.breaks ?? []);
  const requests: FakeService['requests'] = [];
  let served = 0;
  let dead = false;

  function headers(n: number, contentType: string): Record<string, string> {
    const idHeader = breaks.has('x-request-id') ? 'X-Request-Id' : 'request-id';
    return {
      'content-type': contentType,
      ...(breaks.has('no-request-id') ? {} : { [idHeader]: `req_fake_${n}` }),
    };
  }

  function sendError(
    res: ServerResponse,
    n: number,
    status: number,
    type: ApiErrorType,
    message: string,
  ): void {
    const body: Record<string, unknown> = errorBody(type, message);
    if (breaks.has('error-body-without-type')) delete body.type;
    res.writeHead(status, headers(n, 'application/json'));
    res.end(JSON.stringify(body));
  }

  function sendMessage(res: ServerResponse, n: number, message: Message): void {
    let body: Record<string, unknown> = breaks.has('buffered-shape') ? { ...message, role: 'bot' } : message;
    if (breaks.has('forward-compatible')) {
      body = {
        ...body,
        content: [
          { type: 'thinking', thinking: 'Let me see.', signature: 'c2lnbmF0dXJl' },
          ...message.content,
        ],
        usage: { ...message.usage, cache_read_input_tokens: 3 },
      };
    }
    const type = breaks.has('buffered-content-type') ? 'text/plain' : 'application/json';
    res.writeHead(200, headers(n, type));
    res.end(JSON.stringify(body));
  }

  /** The refusal of a body that breaks the field table or makes no sense. */
  function refuseInvalid(res: ServerResponse, n: number, message: string): void {
    if (breaks.has('invalid-422')) sendError(res, n, 422, 'invalid_request_error', message);
    else if (breaks.has('invalid-wrong-error-type')) sendError(res, n, 400, 'api_error', message);
    else sendError(res, n, 400, 'invalid_request_error', message);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const n = ++served;
    const key = req.headers['x-api-key'] ?? req.headers.authorization?.replace(/^Bearer /, '');
    requests.push({
      method: req.method ?? '',
      path: req.url ?? '',
      keyed: key !== undefined,
      headers: req.headers,
    });
    const raw = await readBody(req);
    if (dead) return sendError(res, n, 500, 'api_error', 'the fake died after an aborted stream');
    if (breaks.has('html-everything')) {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><title>Welcome</title><p>It works.</p>');
      return;
    }
    if (req.method !== 'POST' || req.url !== '/v1/messages') {
      return sendError(res, n, 404, 'not_found_error', `${req.method} ${req.url} is not served`);
    }
    const streamedAnyway =
      key === undefined && breaks.has('streams-without-key') && raw.includes('"stream":true');
    const anyKey = key !== undefined && breaks.has('accepts-any-key');
    if (
      key !== options.apiKey &&
      !(key === undefined && breaks.has('accepts-missing-key')) &&
      !streamedAnyway &&
      !anyKey
    ) {
      return breaks.has('missing-key-403')
        ? sendError(res, n, 403, 'permission_error', 'no key')
        : sendError(res, n, 401, 'authentication_error', 'x-api-key header is required');
    }
    const canned = (): Message =>
      reply({ model: 'fake', max_tokens: 16, messages: [{ role: 'user', content: 'ok' }] }, n, breaks, false);
    if (breaks.has('unknown-model')) {
      return sendError(res, n, 400, 'invalid_request_error', 'model: not a model this service serves');
    }
    if (breaks.has('requires-anthropic-version') && req.headers['anthropic-version'] === undefined) {
      return sendError(res, n, 400, 'invalid_request_error', 'anthropic-version: header is required');
    }
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      if (breaks.has('accepts-invalid-body')) return sendMessage(res, n, canned());
      return refuseInvalid(res, n, 'the body is not JSON');
    }
    const loose = json as {
      max_tokens?: unknown;
      messages?: { role?: unknown }[];
      stream?: unknown;
      tools?: { type?: unknown }[];
    };
    if (breaks.has('crashes-on-role-and-serves-missing-max-tokens')) {
      const role = Array.isArray(loose?.messages) ? loose.messages[0]?.role : undefined;
      if (role !== undefined && role !== 'user' && role !== 'assistant') {
        return sendError(res, n, 500, 'api_error', 'internal error');
      }
      if (loose !== null && typeof loose === 'object' && !Array.isArray(loose) && !('max_tokens' in loose)) {
        return sendMessage(res, n, canned());
      }
    }
    if (breaks.has('rejects-stream-false') && loose?.stream === false) {
      return sendError(res, n, 400, 'invalid_request_error', 'stream: false is not supported');
    }
    if (
      breaks.has('rejects-bash-20241022') &&
      Array.isArray(loose?.tools) &&
      loose.tools.some((t) => t?.type === 'bash_20241022')
    ) {
      return sendError(res, n, 400, 'invalid_request_error', 'unknown tool type bash_20241022');
    }
    const parsed = MessageRequest.safeParse(json);
    const problem =
      parsed.success && !breaks.has('accepts-meaningless') ? directionProblem(parsed.data) : undefined;
    if (!parsed.success || problem !== undefined) {
      if (breaks.has('accepts-invalid-body')) return sendMessage(res, n, canned());
      return refuseInvalid(res, n, problem ?? parsed.error?.message ?? 'invalid request');
    }
    const request = parsed.data;
    const hasResults = request.messages.some(
      (t) => typeof t.content !== 'string' && t.content.some((b) => b.type === 'tool_result'),
    );
    if (hasResults && breaks.has('rejects-tool-results')) {
      return sendError(res, n, 400, 'invalid_request_error', 'tool_result blocks are not supported');
    }
    const assistantText = request.messages.some(
      (t) =>
        t.role === 'assistant' && (typeof t.content === 'string' || t.content.some((b) => b.type === 'text')),
    );
    if (assistantText && breaks.has('rejects-assistant-text')) {
      return sendError(res, n, 400, 'invalid_request_error', 'assistant turns may hold tool_use blocks only');
    }
    if (request.stream === true && breaks.has('overloaded-streams')) {
      res.setHeader('retry-after', '0.01');
      return sendError(res, n, 529, 'overloaded_error', 'Overloaded');
    }
    const message = reply(request, n, breaks, request.stream === true);
    if (request.stream !== true || breaks.has('buffered-for-stream')) return sendMessage(res, n, message);
    res.writeHead(
      200,
      headers(n, breaks.has('stream-content-type') ? 'application/json' : 'text/event-stream'),
    );
    if (breaks.has('empty-streams')) {
      res.end();
      return;
    }
    const frames = streamOf(message, breaks);
    if (breaks.has('streams-forever')) {
      res.write(frames[0]);
      const timer = setInterval(() => res.write(encodeEvent({ type: 'ping' })), 20);
      res.on('close', () => clearInterval(timer));
      return;
    }
    if (!breaks.has('dies-after-abort')) {
      res.end(frames.join(''));
      return;
    }
    // Stall after the first delta and never recover: only a client that aborts gets away.
    const firstDelta = frames.findIndex((f) => f.includes('"content_block_delta"'));
    res.write(frames.slice(0, firstDelta + 1).join(''));
    dead = true;
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(e));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((e) => (e ? reject(e) : resolve()));
      }),
  };
}
