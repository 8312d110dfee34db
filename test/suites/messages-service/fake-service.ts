import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
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
] as const;
export type Break = (typeof BREAKS)[number];

export interface FakeServiceOptions {
  /** The key the fake accepts (as x-api-key or Bearer). */
  readonly apiKey: string;
  readonly breaks?: readonly Break[];
}

export interface FakeService {
  readonly baseUrl: string;
  /** Requests served, in arrival order (method, path, whether a key was sent). */
  readonly requests: { method: string; path: string; keyed: boolean }[];
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

/** Blocks that may appear in the other direction only ("Content blocks": direction). */
function directionProblem(request: MessageRequest): string | undefined {
  for (const [i, turn] of request.messages.entries()) {
    if (typeof turn.content === 'string') continue;
    for (const block of turn.content) {
      if (block.type === 'tool_result' && turn.role !== 'user')
        return `messages.${i}: tool_result in an assistant turn`;
      if (block.type === 'tool_use' && turn.role !== 'assistant')
        return `messages.${i}: tool_use in a user turn`;
    }
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
    return {
      ...base,
      content: [
        { type: 'text', text: 'Running it.' },
        { type: 'tool_use', id: `toolu_fake_${n}`, name: 'bash', input: { command: ask[1]!.trim() } },
      ],
      stop_reason: breaks.has('end-turn-with-tool-use') ? 'end_turn' : 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: inputTokens, output_tokens: 12 },
    };
  }
  const chars = Array.from(`You said: ${lastText}`);
  const cut = chars.length > request.max_tokens * 4;
  const text = chars.slice(0, request.max_tokens * 4).join('');
  return {
    ...base,
    content: [{ type: 'text', text }],
    stop_reason: cut ? 'max_tokens' : 'end_turn',
    stop_sequence: null,
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
  if (breaks.has('unknown-event')) events.splice(2, 0, { type: 'wirecheck_debug' });
  if (breaks.has('message-start-with-content')) {
    const start = events[0] as StreamEvent & { message: Record<string, unknown> };
    events[0] = { ...start, message: { ...start.message, content: message.content } };
  }
  if (breaks.has('usage-in-delta')) {
    for (const e of events) if (e.type === 'content_block_delta') e.usage = { output_tokens: 1 };
  }
  if (breaks.has('invalid-partial-json')) {
    const fragments = events.filter(
      (e) => e.type === 'content_block_delta' && (e.delta as { type: string }).type === 'input_json_delta',
    );
    const lastFragment = fragments.at(-1);
    if (lastFragment) {
      const delta = lastFragment.delta as { partial_json: string };
      lastFragment.delta = { ...delta, partial_json: delta.partial_json.slice(0, -1) };
    }
  }
  if (breaks.has('out-of-order')) {
    const stop = events.findLastIndex((e) => e.type === 'content_block_stop');
    const [moved] = events.splice(stop, 1);
    events.splice(events.length - 1, 0, moved!);
  }
  return events.map((e) => {
    if (breaks.has('event-name-mismatch') && e.type === 'content_block_delta') {
      return encodeFrame('delta', JSON.stringify(e));
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
    return {
      'content-type': contentType,
      ...(breaks.has('no-request-id') ? {} : { 'request-id': `req_fake_${n}` }),
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
    const body = breaks.has('buffered-shape') ? { ...message, role: 'bot' } : message;
    const type = breaks.has('buffered-content-type') ? 'text/plain' : 'application/json';
    res.writeHead(200, headers(n, type));
    res.end(JSON.stringify(body));
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const n = ++served;
    const key = req.headers['x-api-key'] ?? req.headers.authorization?.replace(/^Bearer /, '');
    requests.push({ method: req.method ?? '', path: req.url ?? '', keyed: key !== undefined });
    const raw = await readBody(req);
    if (dead) return sendError(res, n, 500, 'api_error', 'the fake died after an aborted stream');
    if (req.method !== 'POST' || req.url !== '/v1/messages') {
      return sendError(res, n, 404, 'not_found_error', `${req.method} ${req.url} is not served`);
    }
    if (key !== options.apiKey && !(key === undefined && breaks.has('accepts-missing-key'))) {
      return breaks.has('missing-key-403')
        ? sendError(res, n, 403, 'permission_error', 'no key')
        : sendError(res, n, 401, 'authentication_error', 'x-api-key header is required');
    }
    const canned = (): Message =>
      reply({ model: 'fake', max_tokens: 16, messages: [{ role: 'user', content: 'ok' }] }, n, breaks, false);
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      if (breaks.has('accepts-invalid-body')) return sendMessage(res, n, canned());
      return sendError(res, n, 400, 'invalid_request_error', 'the body is not JSON');
    }
    const parsed = MessageRequest.safeParse(json);
    const problem = parsed.success ? directionProblem(parsed.data) : parsed.error.message;
    if (!parsed.success || problem !== undefined) {
      if (breaks.has('accepts-invalid-body')) return sendMessage(res, n, canned());
      return sendError(res, n, 400, 'invalid_request_error', problem ?? 'invalid request');
    }
    const request = parsed.data;
    const hasResults = request.messages.some(
      (t) => typeof t.content !== 'string' && t.content.some((b) => b.type === 'tool_result'),
    );
    if (hasResults && breaks.has('rejects-tool-results')) {
      return sendError(res, n, 400, 'invalid_request_error', 'tool_result blocks are not supported');
    }
    const message = reply(request, n, breaks, request.stream === true);
    if (request.stream !== true) return sendMessage(res, n, message);
    res.writeHead(
      200,
      headers(n, breaks.has('stream-content-type') ? 'application/json' : 'text/event-stream'),
    );
    const frames = streamOf(message, breaks);
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
