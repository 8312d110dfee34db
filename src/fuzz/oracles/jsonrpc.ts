import { isUtf8 } from 'node:buffer';
import {
  JSONRPC_ERRORS,
  JsonRpcErrorResponse,
  type JsonRpcId,
  JsonRpcSuccess,
} from '../../protocol/jsonrpc/index.js';
import { negotiatedVersion } from '../../protocol/mcp/index.js';

/*
 * What the reference tool server must answer to one incoming message, computed from the
 * rules alone (JSON-RPC 2.0, MCP 2024-11-05 and the server's decided behaviour in
 * docs/tool-server.md), never by asking the server's own code. Pure.
 *
 * Where the rules leave a choice open the expectation says `either`, so a correct server
 * is never failed for a reasonable choice:
 * - input that is not valid UTF-8: a parse error, or the text as decoded with U+FFFD;
 * - a leading byte order mark: refused as not JSON, or ignored (RFC 8259 section 8.1);
 * - a blank stdio line (nothing but white space): no reply, or a parse error;
 * - a malformed response (no method, but result or error): no reply, or -32600;
 * - a request whose id is already in flight in the same batch: -32600, or (when it is also
 *   otherwise wrong, or is not a tools/call) the answer it would get alone.
 *
 * Contract with the cases: every top-level message is judged as if no call of an earlier
 * message were still in flight, so the cases never reuse the id of a call that may still
 * run. Inside one batch the items are handled in order and the in-flight ids are tracked.
 */

export type ResultRule =
  | { readonly kind: 'empty' }
  | { readonly kind: 'tools' }
  | { readonly kind: 'initialize'; readonly version: string }
  | { readonly kind: 'text'; readonly text: string; readonly isError: boolean }
  | { readonly kind: 'text prefix'; readonly prefix: string; readonly isError?: boolean };

export type Expectation =
  | { readonly kind: 'result'; readonly rule: string; readonly id: JsonRpcId; readonly result: ResultRule }
  | { readonly kind: 'error'; readonly rule: string; readonly id: JsonRpcId | null; readonly code: number }
  | { readonly kind: 'none'; readonly rule: string }
  /** One JSON array; each item answered as if alone, items without a reply leave no entry. */
  | { readonly kind: 'batch'; readonly rule: string; readonly items: readonly Expectation[] }
  | { readonly kind: 'either'; readonly options: readonly Expectation[] };

/** The reference server's tools, in the order tools/list shows them (docs/tool-server.md). */
export const REFERENCE_TOOL_NAMES = ['diagnostic', 'echo', 'slow', 'fail', 'add'] as const;
/** Tools that answer later (a timer): their calls are in flight until then. */
const ASYNC_TOOLS = new Set(['slow']);
const SLOW_DEFAULT_MS = 1_000;
const SLOW_MAX_MS = 60_000;
/** Beyond this nesting a parser may refuse the text (RFC 8259 section 9: limits allowed). */
const NESTING_LIMIT = 512;

type Obj = Record<string, unknown>;
const E = JSONRPC_ERRORS;

export const none = (rule: string): Expectation => ({ kind: 'none', rule });
export const error = (code: number, id: JsonRpcId | null, rule: string): Expectation => ({
  kind: 'error',
  rule,
  id,
  code,
});
const result = (id: JsonRpcId, res: ResultRule, rule: string): Expectation => ({
  kind: 'result',
  rule,
  id,
  result: res,
});
export const either = (...options: Expectation[]): Expectation => ({ kind: 'either', options });

export const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const has = (o: Obj, key: string): boolean => Object.hasOwn(o, key);
/** A JSON-RPC id the server can echo: a string, or a number JSON can carry back (not ±Infinity). */
const isUsableId = (v: unknown): v is JsonRpcId =>
  typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));

// ---------------------------------------------------------------------------------------
// Bytes -> expectation.

export interface BodyOptions {
  /**
   * stdio: a line of nothing but white space may be skipped or refused; SSE: a POSTed body
   * that is blank is not JSON (-32700).
   */
  readonly blank: 'optional' | 'parse error';
}

const parseError = (rule: string): Expectation => error(E.parseError, null, rule);
const fatal = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const lenient = new TextDecoder('utf-8', { ignoreBOM: true });

/** The expectation for one message as bytes: a stdio line without its LF, or a POST body. */
export function expectForBytes(bytes: Uint8Array, options: BodyOptions): Expectation {
  if (!isUtf8(bytes)) {
    return either(
      parseError('input that is not valid UTF-8 may be refused as not JSON'),
      expectForText(lenient.decode(bytes), options),
    );
  }
  return expectForText(fatal.decode(bytes), options);
}

export function expectForText(text: string, options: BodyOptions): Expectation {
  if (text.charCodeAt(0) === 0xfeff) {
    return either(
      parseError('a leading byte order mark may be refused (RFC 8259 8.1)'),
      expectForText(text.slice(1), options),
    );
  }
  if (text.trim() === '') {
    return options.blank === 'optional'
      ? either(none('a blank line carries no message'), parseError('a blank line is not JSON'))
      : parseError('a blank body is not JSON');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return parseError('text that is not JSON: -32700, id null');
  }
  const expected = expectForValue(value);
  return nestingDepth(text) > NESTING_LIMIT
    ? either(parseError('a parser may limit nesting depth (RFC 8259 9)'), expected)
    : expected;
}

/** Deepest bracket nesting of a JSON text, strings skipped; no recursion. */
export function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) deepest = Math.max(deepest, ++depth);
    else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}

// ---------------------------------------------------------------------------------------
// Parsed value -> expectation.

/** What the server must answer to one parsed JSON value (a message or a batch). */
export function expectForValue(value: unknown): Expectation {
  if (!Array.isArray(value)) return single(value, new BatchState());
  if (value.length === 0) return error(E.invalidRequest, null, 'an empty batch is one Invalid Request');
  const state = new BatchState();
  for (const item of value) {
    state.items.push(
      Array.isArray(item)
        ? error(E.invalidRequest, null, 'a batch inside a batch is an Invalid Request entry')
        : single(item, state),
    );
  }
  return {
    kind: 'batch',
    rule: `a batch of ${value.length}: one array of the items' replies`,
    items: state.items,
  };
}

/** Items of the batch so far, and the calls of it still in flight (id -> item index). */
class BatchState {
  readonly items: Expectation[] = [];
  readonly inFlight = new Map<JsonRpcId, number>();
}

function single(value: unknown, state: BatchState): Expectation {
  if (!isObject(value))
    return error(E.invalidRequest, null, 'a message that is not an object: -32600, id null');
  const id = isUsableId(value.id) ? value.id : null;
  if (has(value, 'method')) return requestLike(value, id, state);
  if (has(value, 'result') || has(value, 'error')) {
    return isValidResponse(value)
      ? none('a response sent to the server needs no reply')
      : either(
          none('a malformed response may be ignored'),
          error(E.invalidRequest, id, 'a malformed response'),
        );
  }
  return error(E.invalidRequest, id, 'an object with no method, result or error: -32600');
}

function requestLike(v: Obj, id: JsonRpcId | null, state: BatchState): Expectation {
  if (v.jsonrpc !== '2.0') return error(E.invalidRequest, id, `"jsonrpc" is not "2.0": -32600`);
  if (typeof v.method !== 'string')
    return error(E.invalidRequest, id, 'a method that is not a string: -32600');
  if (has(v, 'params') && !isObject(v.params)) {
    return error(E.invalidRequest, id, 'params that are not an object: -32600');
  }
  const params = v.params as Obj | undefined;
  if (!has(v, 'id')) {
    notification(v.method, params, state);
    return none('a notification gets no reply');
  }
  // MCP: a request id is a string or a number, never null; and an id JSON cannot carry back
  // (a number literal beyond the double range) cannot be echoed.
  if (id === null) {
    const refused = error(E.invalidRequest, null, 'an id that is not a string or finite number: -32600');
    if (typeof v.id !== 'number') return refused;
    // An id beyond the double range cannot be echoed: refused, or answered with the error it
    // would get anyway, id null. Never a result: a result must carry the request's id.
    const alone = answerAlone(0, v.method, params);
    return alone.kind === 'error'
      ? either(refused, error(alone.code, null, `${alone.rule}, id null (the id cannot be echoed)`))
      : refused;
  }
  return request(id, v.method, params, state);
}

function isValidResponse(v: Obj): boolean {
  if (v.jsonrpc !== '2.0' || !has(v, 'id') || has(v, 'result') === has(v, 'error')) return false;
  if (has(v, 'result')) return isUsableId(v.id) && isObject(v.result);
  const e = v.error;
  return (
    (v.id === null || isUsableId(v.id)) &&
    isObject(e) &&
    Number.isInteger(e.code) &&
    typeof e.message === 'string'
  );
}

function notification(method: string, params: Obj | undefined, state: BatchState): void {
  if (method !== 'notifications/cancelled') return;
  const target = params?.requestId;
  if (!isUsableId(target)) return;
  const index = state.inFlight.get(target);
  if (index === undefined) return;
  // MCP: no reply is ever sent for a cancelled request.
  state.items[index] = none(`a call cancelled by notifications/cancelled gets no reply`);
  state.inFlight.delete(target);
}

function request(id: JsonRpcId, method: string, params: Obj | undefined, state: BatchState): Expectation {
  const alone = answerAlone(id, method, params);
  const inFlight = state.inFlight.has(id);
  if (method === 'tools/call' && alone.kind === 'result') {
    if (inFlight) return error(E.invalidRequest, id, 'a call whose id is already in flight: -32600');
    const name = (params as Obj).name as string;
    if (ASYNC_TOOLS.has(name)) state.inFlight.set(id, state.items.length);
    return alone;
  }
  return inFlight
    ? either(alone, error(E.invalidRequest, id, 'a request whose id is already in flight may be refused'))
    : alone;
}

/** The answer a request gets when its id is not in flight. */
function answerAlone(id: JsonRpcId, method: string, params: Obj | undefined): Expectation {
  switch (method) {
    case 'ping':
      return result(id, { kind: 'empty' }, 'ping: an empty result');
    case 'tools/list':
      return result(id, { kind: 'tools' }, 'tools/list: every tool');
    case 'initialize':
      return isInitializeParams(params)
        ? result(
            id,
            { kind: 'initialize', version: negotiatedVersion(String(params?.protocolVersion)) },
            'initialize: the server answers the version asked for when it knows it, else its latest',
          )
        : error(
            E.invalidParams,
            id,
            'initialize without {protocolVersion, capabilities, clientInfo}: -32602',
          );
    case 'tools/call':
      return call(id, params);
    default:
      return error(E.methodNotFound, id, 'an unknown method: -32601');
  }
}

function isInitializeParams(params: Obj | undefined): boolean {
  if (params === undefined) return false;
  const info = params.clientInfo;
  return (
    typeof params.protocolVersion === 'string' &&
    isObject(params.capabilities) &&
    isObject(info) &&
    typeof info.name === 'string' &&
    typeof info.version === 'string'
  );
}

type ArgRule = readonly [key: string, type: 'string' | 'number' | 'integer' | 'boolean', required: boolean];

const TOOL_ARGS: ReadonlyMap<string, readonly ArgRule[]> = new Map<string, readonly ArgRule[]>([
  ['diagnostic', [['verbose', 'boolean', false]]],
  ['echo', [['text', 'string', true]]],
  ['slow', [['ms', 'integer', false]]],
  ['fail', [['message', 'string', false]]],
  [
    'add',
    [
      ['a', 'number', true],
      ['b', 'number', true],
    ],
  ],
]);

function fits(value: unknown, type: ArgRule[1]): boolean {
  if (type === 'integer') return Number.isInteger(value);
  return typeof value === type;
}

function call(id: JsonRpcId, params: Obj | undefined): Expectation {
  const bad = (why: string) => error(E.invalidParams, id, `tools/call ${why}: -32602`);
  if (params === undefined) return bad('without params');
  const { name } = params;
  if (typeof name !== 'string') return bad('with a name that is not a string');
  if (has(params, 'arguments') && !isObject(params.arguments))
    return bad('with arguments that are not an object');
  const rules = TOOL_ARGS.get(name);
  if (rules === undefined) return bad('of an unknown tool');
  // Absent arguments count as empty (spec "Tool server, SSE transport").
  const args = (params.arguments as Obj | undefined) ?? {};
  // A session that negotiated MCP 2025-11-25 answers invalid arguments as a tool execution
  // error (SEP-1303); the oracle does not follow which revision a session negotiated.
  const invalid = (why: string) =>
    either(
      bad(why),
      result(
        id,
        { kind: 'text prefix', prefix: `Invalid arguments for tool ${name}`, isError: true },
        `tools/call ${why}: a result with isError: true (MCP 2025-11-25)`,
      ),
    );
  for (const [key, type, required] of rules) {
    if (!has(args, key)) {
      if (required) return invalid(`without the required argument ${key}`);
    } else if (!fits(args[key], type)) return invalid(`with argument ${key} not of type ${type}`);
  }
  const rule = `tools/call ${name}: its result`;
  switch (name) {
    case 'diagnostic':
      return result(id, { kind: 'text prefix', prefix: 'status: ok\n' }, rule);
    case 'echo':
      return result(id, { kind: 'text', text: args.text as string, isError: false }, rule);
    case 'slow': {
      const ms = has(args, 'ms') ? (args.ms as number) : SLOW_DEFAULT_MS;
      const waited = Math.min(Math.max(ms, 0), SLOW_MAX_MS);
      return result(id, { kind: 'text', text: `waited ${waited} ms`, isError: false }, rule);
    }
    case 'fail': {
      const text = has(args, 'message') ? (args.message as string) : 'this tool always fails';
      return result(id, { kind: 'text', text, isError: true }, rule);
    }
    default:
      return result(
        id,
        { kind: 'text', text: String((args.a as number) + (args.b as number)), isError: false },
        rule,
      );
  }
}

// ---------------------------------------------------------------------------------------
// Judging what arrived.

/** No reply at all is a right answer. */
export function allowsNone(e: Expectation): boolean {
  switch (e.kind) {
    case 'none':
      return true;
    case 'result':
    case 'error':
      return false;
    case 'batch':
      return e.items.every(allowsNone);
    case 'either':
      return e.options.some(allowsNone);
  }
}

/** `reply` (one parsed message from the wire) is a right answer. */
export function accepts(e: Expectation, reply: unknown): boolean {
  switch (e.kind) {
    case 'none':
      return false;
    case 'either':
      return e.options.some((o) => accepts(o, reply));
    case 'batch':
      return Array.isArray(reply) && reply.length > 0 && matchReplies(e.items, reply).ok;
    case 'error': {
      if (!isObject(reply) || has(reply, 'result') || !sameId(reply.id, e.id)) return false;
      return JsonRpcErrorResponse.safeParse(reply).success && (reply.error as Obj).code === e.code;
    }
    case 'result': {
      if (!isObject(reply) || has(reply, 'error') || !sameId(reply.id, e.id)) return false;
      return JsonRpcSuccess.safeParse(reply).success && resultFits(e.result, reply.result as Obj);
    }
  }
}

function sameId(got: unknown, want: JsonRpcId | null): boolean {
  // Numbers compare as the doubles both sides parse (ids beyond 2^53 arrive rounded).
  return got === want;
}

function resultFits(rule: ResultRule, res: Obj): boolean {
  switch (rule.kind) {
    case 'empty':
      return Object.keys(res).every((k) => k === '_meta');
    case 'tools': {
      const tools = res.tools;
      if (!Array.isArray(tools)) return false;
      const names = tools.map((t) => (isObject(t) ? t.name : undefined));
      return (
        names.length === REFERENCE_TOOL_NAMES.length && REFERENCE_TOOL_NAMES.every((n) => names.includes(n))
      );
    }
    case 'initialize': {
      const info = res.serverInfo;
      return (
        res.protocolVersion === rule.version &&
        isObject(res.capabilities) &&
        isObject(res.capabilities.tools) &&
        isObject(info) &&
        typeof info.name === 'string' &&
        typeof info.version === 'string'
      );
    }
    case 'text':
    case 'text prefix': {
      const first = Array.isArray(res.content) ? res.content[0] : undefined;
      if (!isObject(first) || first.type !== 'text' || typeof first.text !== 'string') return false;
      if (rule.kind === 'text prefix')
        return first.text.startsWith(rule.prefix) && (res.isError === true) === (rule.isError ?? false);
      return first.text === rule.text && (res.isError === true) === rule.isError;
    }
  }
}

export type Matching =
  | { readonly ok: true }
  | {
      readonly ok: false;
      /** Replies no expectation accepts (indexes into the replies). */
      readonly unexpected: readonly number[];
      /** Expectations that needed a reply and got none (indexes into the expectations). */
      readonly missing: readonly number[];
    };

/**
 * Pair every reply with a distinct expectation that accepts it; expectations left over
 * must allow no reply. Replies may come in any order (JSON-RPC 2.0: batch entries and
 * answers to separate requests alike), so this is a bipartite matching; the in-order
 * pairing is tried first because the usual server keeps the order.
 */
export function matchReplies(expectations: readonly Expectation[], replies: readonly unknown[]): Matching {
  if (inOrder(expectations, replies)) return { ok: true };
  const cache = new Map<number, boolean>();
  const fits = (r: number, x: number): boolean => {
    const key = r * expectations.length + x;
    let v = cache.get(key);
    if (v === undefined) {
      v = accepts(expectations[x] as Expectation, replies[r]);
      cache.set(key, v);
    }
    return v;
  };
  // Only a reply with the expected id (or an array, for a batch) can fit: index by that.
  const byKey = new Map<string, number[]>();
  expectations.forEach((e, x) => {
    for (const key of keysOf(e)) {
      const list = byKey.get(key);
      if (list === undefined) byKey.set(key, [x]);
      else list.push(x);
    }
  });
  const candidates = replies.map((reply) => byKey.get(replyKey(reply)) ?? []);
  const repliesFor = expectations.map(() => [] as number[]);
  candidates.forEach((xs, r) => {
    for (const x of xs) repliesFor[x]?.push(r);
  });
  const replyOf = new Array<number>(expectations.length).fill(-1);
  const expectationOf = new Array<number>(replies.length).fill(-1);
  // Augmenting paths (Kuhn): a vertex once matched stays matched, so matching the
  // expectations that need a reply first and then the replies gives a matching that covers
  // both whenever one exists. Recursion is at most as deep as there are messages.
  const fromExpectation = (x: number, seen: Set<number>): boolean => {
    for (const r of repliesFor[x] ?? []) {
      if (seen.has(r) || !fits(r, x)) continue;
      seen.add(r);
      const held = expectationOf[r] as number;
      if (held === -1 || fromExpectation(held, seen)) {
        expectationOf[r] = x;
        replyOf[x] = r;
        return true;
      }
    }
    return false;
  };
  const fromReply = (r: number, seen: Set<number>): boolean => {
    for (const x of candidates[r] ?? []) {
      if (seen.has(x) || !fits(r, x)) continue;
      seen.add(x);
      const held = replyOf[x] as number;
      if (held === -1 || fromReply(held, seen)) {
        replyOf[x] = r;
        expectationOf[r] = x;
        return true;
      }
    }
    return false;
  };
  // A greedy pass first (cheap, and nearly always enough), then augmenting paths for the rest.
  const greedy = (x: number): void => {
    for (const r of repliesFor[x] ?? []) {
      if (expectationOf[r] === -1 && fits(r, x)) {
        expectationOf[r] = x;
        replyOf[x] = r;
        return;
      }
    }
  };
  const definite = expectations.map((e) => !allowsNone(e));
  definite.forEach((d, x) => {
    if (d) greedy(x);
  });
  const missing: number[] = [];
  definite.forEach((d, x) => {
    if (d && replyOf[x] === -1 && !fromExpectation(x, new Set())) missing.push(x);
  });
  definite.forEach((d, x) => {
    if (!d) greedy(x);
  });
  const unexpected: number[] = [];
  for (let r = 0; r < replies.length; r++) {
    if (expectationOf[r] === -1 && !fromReply(r, new Set())) unexpected.push(r);
  }
  return unexpected.length === 0 && missing.length === 0 ? { ok: true } : { ok: false, unexpected, missing };
}

function replyKey(reply: unknown): string {
  if (Array.isArray(reply)) return 'batch';
  return isObject(reply) ? `id ${JSON.stringify(reply.id) ?? 'absent'}` : 'other';
}

function keysOf(e: Expectation): string[] {
  switch (e.kind) {
    case 'none':
      return [];
    case 'batch':
      return ['batch'];
    case 'result':
    case 'error':
      return [`id ${JSON.stringify(e.id)}`];
    case 'either':
      return [...new Set(e.options.flatMap(keysOf))];
  }
}

function inOrder(expectations: readonly Expectation[], replies: readonly unknown[]): boolean {
  let x = 0;
  for (const reply of replies) {
    for (;;) {
      const e = expectations[x];
      if (e === undefined) return false;
      x++;
      if (accepts(e, reply)) break;
      if (!allowsNone(e)) return false;
    }
  }
  return expectations.slice(x).every(allowsNone);
}

// ---------------------------------------------------------------------------------------
// Printing.

function showId(id: JsonRpcId | null): string {
  const s = JSON.stringify(id);
  return s.length > 40 ? `${s.slice(0, 40)}...` : s;
}

/** One line: what the expectation asks for and why. */
export function describeExpectation(e: Expectation): string {
  switch (e.kind) {
    case 'none':
      return `no reply (${e.rule})`;
    case 'error':
      return `error ${e.code} id ${showId(e.id)} (${e.rule})`;
    case 'result':
      return `a result id ${showId(e.id)} (${e.rule})`;
    case 'batch': {
      const shown = e.items.slice(0, 8).map(describeExpectation).join('; ');
      return `[${shown}${e.items.length > 8 ? `; ... ${e.items.length} items` : ''}]`;
    }
    case 'either':
      return `either ${e.options.map(describeExpectation).join(' or ')}`;
  }
}

// ---------------------------------------------------------------------------------------
// The HTTP answer to a POST on the SSE transport (docs/tool-server.md, "SSE transport").

/** Which session a POST names, as the server can know it. */
export type SessionNamed =
  | 'open'
  | 'none'
  | 'unknown'
  | 'closed'
  /** `?sessionId=` empty, an open session in the header: either may be taken to win. */
  | 'empty query, open header';

export interface PostFacts {
  readonly path: 'message path' | 'other';
  readonly session: SessionNamed;
  readonly contentType: string | undefined;
  readonly bodyBytes: number;
  readonly bodyLimit: number;
}

export interface PostExpectation {
  /** Any of these is right; 202 means the JSON-RPC answer goes out on the session's stream. */
  readonly statuses: readonly number[];
  readonly rule: string;
}

/** `application/json` or `application/*+json`, any case, parameters allowed. */
export function isJsonMediaType(value: string | undefined): boolean {
  if (value === undefined) return false;
  const essence = (value.split(';')[0] ?? '').trim().toLowerCase();
  return (
    essence === 'application/json' ||
    (essence.startsWith('application/') &&
      essence.endsWith('+json') &&
      essence.length > 'application/+json'.length)
  );
}

export function expectForPost(f: PostFacts): PostExpectation {
  if (f.path === 'other')
    return { statuses: [404], rule: 'a path that is not the message path: 404 {"error"}' };
  const refusals: [number, string][] = [];
  if (f.bodyBytes > f.bodyLimit) refusals.push([413, `a body over ${f.bodyLimit} bytes: 413`]);
  if (f.session === 'none' || f.session === 'unknown' || f.session === 'closed') {
    const named = { none: 'no session', unknown: 'an unknown session', closed: 'a closed session' }[
      f.session
    ];
    refusals.push([400, `${named}: 400 {"error"}`]);
  }
  if (!isJsonMediaType(f.contentType)) refusals.push([400, 'a Content-Type that is not JSON: 400 {"error"}']);
  // When several refusals apply, the server may check them in any order.
  if (refusals.length > 0) {
    return { statuses: [...new Set(refusals.map(([s]) => s))], rule: refusals.map(([, r]) => r).join('; ') };
  }
  if (f.session === 'empty query, open header') {
    return {
      statuses: [202, 400],
      rule: 'an empty sessionId query beside an open session header: 202 or 400',
    };
  }
  return { statuses: [202], rule: 'an open session: 202, the answer on its stream' };
}
