import fc from 'fast-check';
import { HOSTILE_BYTES } from './bytes.js';
import { jsonTextUnit } from './json-text-unit.js';

/*
 * JSON-RPC input for the tool server, valid and broken alike: requests for every method
 * (good, bad and absent arguments, unknown tools), notifications, responses sent to the
 * server, unknown methods, wrong envelope types, ids JSON can and cannot carry back, text
 * that is not JSON (truncated, garbage, NUL, bytes that are not UTF-8, huge), and batches
 * (empty, mixed, nested, large, with calls cancelled or repeated inside them).
 *
 * A message is built as a `Wire` value, which may hold raw text (number literals beyond
 * double precision, duplicate keys), then written out in one of several layouts and
 * possibly damaged. Nothing here says what the server must answer: the oracle
 * (oracles/jsonrpc.ts) works that out from the bytes.
 *
 * Calls of the `slow` tool are the only ones that stay in flight. Their ids are
 * placeholders, numbered per case, so no message reuses the id of a call an earlier
 * message may still be running (the oracle's contract); a batch may repeat or cancel the
 * id of its own slow call on purpose.
 */

/** Text written out verbatim (a number literal, a whole damaged message). */
export class Raw {
  constructor(readonly text: string) {}
}
/** An object written with these entries in this order, duplicates included. */
export class Entries {
  constructor(readonly entries: readonly (readonly [string, Wire])[]) {}
}
/** The id of a slow call: a new one, or the last one of the same batch. */
export class SlowId {
  constructor(readonly fresh: boolean) {}
}
export type Wire =
  | null
  | boolean
  | number
  | string
  | Raw
  | Entries
  | SlowId
  | readonly Wire[]
  | { readonly [key: string]: Wire };

export type Layout = 'compact' | 'spaced' | 'pretty' | 'escaped' | 'padded';

/** How one message reaches the wire; `damage` works on the written text's bytes. */
export interface MessageTemplate {
  readonly what: string;
  readonly value: Wire;
  readonly layout: Layout;
  readonly damage?: Damage;
}

export type Damage =
  | { readonly op: 'truncate'; readonly at: number }
  | { readonly op: 'insert'; readonly at: number; readonly bytes: readonly number[]; readonly what: string }
  | { readonly op: 'append'; readonly text: string }
  | { readonly op: 'replace'; readonly bytes: readonly number[] };

/** One message as sent: a stdio line's bytes (without the line end) or a POST body. */
export interface RpcMessage {
  readonly what: string;
  readonly body: Uint8Array;
  /** It starts calls of the slow tool (they answer a few ms later, or are cancelled). */
  readonly slow: boolean;
}

/** Ids of slow calls start with this; no other generated id does. */
export const SLOW_ID_PREFIX = 'slow#';

// ---------------------------------------------------------------------------------------
// Writing a Wire value out.

function escapeAll(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) out += `\\u${s.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return `${out}"`;
}

interface Ids {
  next: number;
  last: string | undefined;
}

/** The JSON text of `value` in `layout`, slow ids numbered from `ids`. */
export function writeWire(value: Wire, layout: Layout, ids: Ids = { next: 0, last: undefined }): string {
  const pretty = layout === 'pretty';
  const sep = layout === 'spaced' ? ', ' : ',';
  const colon = layout === 'spaced' || pretty ? ': ' : ':';
  const str = (s: string) => (layout === 'escaped' ? escapeAll(s) : JSON.stringify(s));
  const text = (v: Wire, indent: string): string => {
    const inner = `${indent}  `;
    const list = (parts: string[], open: string, close: string) =>
      parts.length === 0
        ? `${open}${close}`
        : pretty
          ? `${open}\n${parts.map((p) => inner + p).join(',\n')}\n${indent}${close}`
          : `${open}${parts.join(sep)}${close}`;
    if (v instanceof Raw) return v.text;
    if (v instanceof SlowId) {
      if (v.fresh || ids.last === undefined) ids.last = `${SLOW_ID_PREFIX}${ids.next++}`;
      return str(ids.last);
    }
    if (v instanceof Entries) {
      return list(
        v.entries.map(([k, x]) => `${str(k)}${colon}${text(x, inner)}`),
        '{',
        '}',
      );
    }
    if (typeof v === 'string') return str(v);
    if (Array.isArray(v))
      return list(
        v.map((x) => text(x, inner)),
        '[',
        ']',
      );
    if (typeof v === 'object' && v !== null) {
      return list(
        Object.entries(v).map(([k, x]) => `${str(k)}${colon}${text(x as Wire, inner)}`),
        '{',
        '}',
      );
    }
    return JSON.stringify(v);
  };
  const written = text(value, '');
  // JSON white space around the value; on stdio the CR before the LF is part of the line end.
  return layout === 'padded' ? ` \t${written}\t \r` : written;
}

const encoder = new TextEncoder();

function damaged(bytes: Uint8Array, d: Damage): Uint8Array {
  switch (d.op) {
    case 'truncate':
      return bytes.subarray(0, bytes.length === 0 ? 0 : d.at % bytes.length);
    case 'insert': {
      const at = d.at % (bytes.length + 1);
      return Buffer.concat([bytes.subarray(0, at), Uint8Array.from(d.bytes), bytes.subarray(at)]);
    }
    case 'append':
      return Buffer.concat([bytes, encoder.encode(d.text)]);
    case 'replace':
      return Uint8Array.from(d.bytes);
  }
}

/** Write out the messages of one case; slow ids are numbered across the whole case. */
export function renderMessages(templates: readonly MessageTemplate[]): RpcMessage[] {
  const ids: Ids = { next: 0, last: undefined };
  return templates.map((t) => {
    ids.last = undefined;
    const before = ids.next;
    const bytes = encoder.encode(writeWire(t.value, t.layout, ids));
    return {
      slow: ids.next > before,
      what: t.damage === undefined ? t.what : `${t.what}, ${describeDamage(t.damage)}`,
      body: t.damage === undefined ? bytes : damaged(bytes, t.damage),
    };
  });
}

function describeDamage(d: Damage): string {
  switch (d.op) {
    case 'truncate':
      return `cut at byte ${d.at}`;
    case 'insert':
      return `${d.what} inserted at ${d.at}`;
    case 'append':
      return `followed by ${JSON.stringify(d.text.slice(0, 20))}`;
    case 'replace':
      return 'replaced by raw bytes';
  }
}

// ---------------------------------------------------------------------------------------
// Pieces.

const obj = (entries: Record<string, Wire | undefined>): { [key: string]: Wire } => {
  const out: { [key: string]: Wire } = {};
  for (const [k, v] of Object.entries(entries)) {
    // Own data properties, `__proto__` included, as JSON.parse makes them.
    if (v !== undefined)
      Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  }
  return out;
};

const arbText: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.string({ maxLength: 16 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 8 }) },
  // Any scalar value, NUL, LF and U+2028 included, and lone surrogates: written escaped, still one line.
  { weight: 2, arbitrary: fc.string({ unit: jsonTextUnit, maxLength: 8 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('\u0000', 'a\nb', '\r\n', '\u2028', '\uFEFF', '"', '\\', '</script>'),
  },
);

const arbPlainId: fc.Arbitrary<Wire> = fc.oneof(
  { weight: 6, arbitrary: fc.nat({ max: 1_000_000 }) },
  { weight: 2, arbitrary: fc.integer({ min: -(2 ** 31), max: 2 ** 31 }) },
  {
    weight: 3,
    arbitrary: fc.string({ maxLength: 12 }).map((s) => (s.startsWith(SLOW_ID_PREFIX) ? `x${s}` : s)),
  },
  { weight: 1, arbitrary: fc.string({ unit: jsonTextUnit, maxLength: 6 }).map((s) => `id-${s}`) },
);

/** Ids that are valid JSON-RPC but odd: the server must echo them as it reads them. */
const arbOddId: fc.Arbitrary<Wire> = fc.oneof(
  fc.constantFrom<Wire>(
    0,
    '',
    1.5,
    -1,
    new Raw('-0'),
    new Raw('1E2'),
    new Raw('1.0'),
    new Raw('9007199254740993'),
    new Raw('18446744073709551616'),
    new Raw('123456789012345678901234567890'),
    new Raw('1e308'),
    new Raw('5e-324'),
  ),
  fc.bigInt({ min: 2n ** 53n, max: 2n ** 200n }).map((n) => new Raw(n.toString())),
  fc.integer({ min: 1_000, max: 20_000 }).map((n) => 'i'.repeat(n)),
);

/** Ids JSON-RPC (as MCP uses it) refuses, or JSON cannot carry back. */
const arbBadId: fc.Arbitrary<Wire> = fc.constantFrom<Wire>(
  null,
  true,
  false,
  {},
  { a: 1 },
  [],
  [1],
  // Number literals beyond the double range: JSON.parse makes them ±Infinity, which no reply can carry.
  new Raw('1e400'),
  new Raw('-1e400'),
  new Raw(`1${'0'.repeat(400)}`),
);

export const arbId: fc.Arbitrary<Wire> = fc.oneof(
  { weight: 10, arbitrary: arbPlainId },
  { weight: 3, arbitrary: arbOddId },
);

const arbNumber: fc.Arbitrary<Wire> = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom<Wire>(new Raw('1e308'), new Raw('-0'), new Raw('0.1'), new Raw('1E-7')),
);

/** A JSON value of any type, for wrong-type slots. */
const arbAnyJson: fc.Arbitrary<Wire> = fc.oneof(
  fc.constantFrom<Wire>(null, true, false, 0, -1, 2.5, '', 'x', [], [1, 'a'], {}, { k: 'v' }),
  arbText,
);

const arbMeta = fc.constantFrom<Record<string, Wire | undefined>>(
  {},
  { _meta: {} },
  { _meta: { progressToken: 1 } },
  { x_extra: 'ignored' },
  { __proto__: { polluted: true } } as never,
);

// ---------------------------------------------------------------------------------------
// Requests.

interface Req {
  what: string;
  method: string;
  /** undefined: no params member. */
  params: Wire | undefined;
  /** A slow call: its id is a placeholder. */
  slow?: boolean;
}

const GOOD_INITIALIZE = {
  protocolVersion: '2024-11-05',
  capabilities: {},
  clientInfo: { name: 'wirecheck-fuzz', version: '0.0.0' },
};

const arbInitialize: fc.Arbitrary<Req> = fc.oneof(
  fc
    .record({
      version: fc.constantFrom('2024-11-05', '2025-03-26', '1999-01-01', ''),
      caps: fc.constantFrom<Wire>({}, { roots: { listChanged: true } }, { sampling: {} }),
      extra: arbMeta,
    })
    .map(({ version, caps, extra }) => ({
      what: `initialize asking ${JSON.stringify(version)}`,
      method: 'initialize',
      params: obj({ ...GOOD_INITIALIZE, protocolVersion: version, capabilities: caps, ...extra }),
    })),
  fc
    .constantFrom<[string, Wire | undefined]>(
      ['no params', undefined],
      ['empty params', {}],
      ['no protocolVersion', { capabilities: {}, clientInfo: GOOD_INITIALIZE.clientInfo }],
      ['protocolVersion a number', { ...GOOD_INITIALIZE, protocolVersion: 20241105 }],
      ['capabilities an array', { ...GOOD_INITIALIZE, capabilities: [] }],
      ['capabilities null', { ...GOOD_INITIALIZE, capabilities: null }],
      ['no clientInfo', { protocolVersion: '2024-11-05', capabilities: {} }],
      ['clientInfo without version', { ...GOOD_INITIALIZE, clientInfo: { name: 'x' } }],
      ['clientInfo name a number', { ...GOOD_INITIALIZE, clientInfo: { name: 1, version: '1' } }],
    )
    .map(([what, params]) => ({ what: `initialize, ${what}`, method: 'initialize', params })),
);

const arbPing: fc.Arbitrary<Req> = fc
  .constantFrom<Wire | undefined>(undefined, {}, { _meta: {} })
  .map((params) => ({ what: 'ping', method: 'ping', params }));

const arbList: fc.Arbitrary<Req> = fc
  .constantFrom<Wire | undefined>(undefined, {}, { cursor: 'x' }, { cursor: null })
  .map((params) => ({ what: 'tools/list', method: 'tools/list', params }));

const call = (what: string, params: Wire | undefined, slow = false): Req => ({
  what: `tools/call ${what}`,
  method: 'tools/call',
  params,
  ...(slow ? { slow } : {}),
});

const arbGoodCall: fc.Arbitrary<Req> = fc.oneof(
  fc
    .record({ text: arbText, extra: arbMeta })
    .map(({ text, extra }) => call('echo', { name: 'echo', arguments: obj({ text, ...extra }) })),
  fc
    .constantFrom<Wire | undefined>(undefined, {}, { verbose: true }, { verbose: false }, { unknown: 1 })
    .map((args) => call('diagnostic', obj({ name: 'diagnostic', arguments: args }))),
  fc
    .option(arbText, { nil: undefined })
    .map((message) => call('fail', { name: 'fail', arguments: obj({ message }) })),
  fc
    .record({ a: arbNumber, b: arbNumber })
    .map(({ a, b }) => call('add', { name: 'add', arguments: { a, b } })),
  fc
    .integer({ min: -5, max: 3 })
    .map((ms) => call(`slow ${ms} ms`, { name: 'slow', arguments: { ms } }, true)),
);

const arbBadCall: fc.Arbitrary<Req> = fc.oneof(
  fc.constantFrom<Req>(
    call('without params', undefined),
    call('with empty params', {}),
    call('of echo without arguments', { name: 'echo' }),
    call('of echo with arguments {}', { name: 'echo', arguments: {} }),
    call('of echo with text a number', { name: 'echo', arguments: { text: 5 } }),
    call('of echo with text null', { name: 'echo', arguments: { text: null } }),
    call('of add with a string', { name: 'add', arguments: { a: '1', b: 2 } }),
    call('of add without b', { name: 'add', arguments: { a: 1 } }),
    call('of slow with ms 1.5', { name: 'slow', arguments: { ms: 1.5 } }),
    call('of slow with ms "1"', { name: 'slow', arguments: { ms: '1' } }),
    call('of slow with ms 1e400', { name: 'slow', arguments: { ms: new Raw('1e400') } }),
    call('of diagnostic with verbose "yes"', { name: 'diagnostic', arguments: { verbose: 'yes' } }),
    call('of fail with message 0', { name: 'fail', arguments: { message: 0 } }),
    call('with arguments __proto__', {
      name: 'echo',
      arguments: new Entries([['__proto__', { text: 'hidden' }]]),
    }),
  ),
  fc
    .record({
      name: fc.constantFrom('echo', 'diagnostic', 'add'),
      args: arbAnyJson.filter((v) => !isPlainObject(v)),
    })
    .map(({ name, args }) =>
      call(`of ${name} with arguments ${JSON.stringify(args)}`, { name, arguments: args }),
    ),
  fc
    .oneof(
      fc.constantFrom(
        '',
        'ECHO',
        'echo ',
        'nope',
        'constructor',
        '__proto__',
        'toString',
        'hasOwnProperty',
        'tools/call',
      ),
      fc.string({ maxLength: 10 }),
    )
    .filter((n) => !['diagnostic', 'echo', 'slow', 'fail', 'add'].includes(n))
    .map((name) => call(`of the unknown tool ${JSON.stringify(name)}`, { name, arguments: {} })),
  arbAnyJson
    .filter((v) => typeof v !== 'string')
    .map((name) => call(`with name ${JSON.stringify(name)}`, { name, arguments: {} })),
);

const KNOWN_METHODS = new Set(['initialize', 'ping', 'tools/list', 'tools/call']);
const arbUnknownMethod: fc.Arbitrary<Req> = fc
  .oneof(
    fc.constantFrom(
      '',
      'PING',
      'Ping',
      ' ping',
      'tools/List',
      'tools/unknown',
      'resources/list',
      'prompts/list',
      'notifications/initialized',
      'rpc.discover',
      '__proto__',
      'constructor',
      'toString',
      'hasOwnProperty',
    ),
    fc.string({ maxLength: 24 }),
    fc.string({ unit: jsonTextUnit, maxLength: 8 }),
    fc.integer({ min: 1_000, max: 20_000 }).map((n) => 'm'.repeat(n)),
  )
  .filter((m) => !KNOWN_METHODS.has(m))
  .map((method) => ({
    what: `the unknown method ${JSON.stringify(method.slice(0, 30))}`,
    method,
    params: {},
  }));

const arbRequestBody: fc.Arbitrary<Req> = fc.oneof(
  { weight: 2, arbitrary: arbInitialize },
  { weight: 3, arbitrary: arbPing },
  { weight: 2, arbitrary: arbList },
  { weight: 6, arbitrary: arbGoodCall },
  { weight: 5, arbitrary: arbBadCall },
  { weight: 3, arbitrary: arbUnknownMethod },
);

function isPlainObject(v: unknown): boolean {
  return (
    typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Raw) && !(v instanceof SlowId)
  );
}

/** A request as a Wire object; a slow call gets its placeholder id. */
function requestWire(r: Req, id: Wire, extra: Record<string, Wire | undefined> = {}): Wire {
  return obj({
    jsonrpc: '2.0',
    id: r.slow ? new SlowId(true) : id,
    method: r.method,
    params: r.params,
    ...extra,
  });
}

interface Built {
  what: string;
  value: Wire;
  slow?: boolean;
}

const arbRequest: fc.Arbitrary<Built> = fc
  .record({
    r: arbRequestBody,
    id: arbId,
    extra: fc.oneof({ weight: 5, arbitrary: fc.constant({}) }, arbMeta),
  })
  .map(({ r, id, extra }) => ({
    what: `request ${r.what}${r.slow ? '' : ` id ${shortJson(id)}`}`,
    value: requestWire(r, id, extra),
    ...(r.slow ? { slow: true } : {}),
  }));

function shortJson(w: Wire): string {
  const s = w instanceof Raw ? w.text : (JSON.stringify(w) ?? String(w));
  return s.length > 30 ? `${s.slice(0, 30)}...(${s.length})` : s;
}

// ---------------------------------------------------------------------------------------
// Notifications, responses, broken envelopes.

const arbNotification: fc.Arbitrary<Built> = fc
  .oneof(
    fc.constant<[string, Wire | undefined]>(['notifications/initialized', undefined]),
    fc.constant<[string, Wire | undefined]>(['notifications/initialized', {}]),
    arbPlainId.map<[string, Wire | undefined]>((requestId) => [
      'notifications/cancelled',
      { requestId, reason: 'fuzz' },
    ]),
    fc.constant<[string, Wire | undefined]>(['notifications/cancelled', {}]),
    fc.constant<[string, Wire | undefined]>(['notifications/progress', { progressToken: 1, progress: 1 }]),
    fc.constant<[string, Wire | undefined]>(['ping', undefined]),
    fc.constant<[string, Wire | undefined]>(['tools/call', { name: 'echo', arguments: { text: 'x' } }]),
    fc.string({ maxLength: 16 }).map<[string, Wire | undefined]>((m) => [m, {}]),
  )
  .map(([method, params]) => ({
    what: `notification ${JSON.stringify(method)}`,
    value: obj({ jsonrpc: '2.0', method, params }),
  }));

const arbResponse: fc.Arbitrary<Built> = fc.oneof(
  fc.record({ id: arbPlainId, result: fc.constantFrom<Wire>({}, { roots: [] }) }).map(({ id, result }) => ({
    what: 'a success response',
    value: obj({ jsonrpc: '2.0', id, result }),
  })),
  fc
    .record({
      id: fc.oneof(arbPlainId, fc.constant(null)),
      code: fc.integer({ min: -32800, max: 0 }),
      message: arbText,
    })
    .map(({ id, code, message }) => ({
      what: 'an error response',
      value: obj({ jsonrpc: '2.0', id, error: { code, message } }),
    })),
  fc
    .constantFrom<[string, Wire]>(
      ['result a number', { jsonrpc: '2.0', id: 1, result: 5 }],
      ['result null', { jsonrpc: '2.0', id: 1, result: null }],
      ['result without id', { jsonrpc: '2.0', result: {} }],
      ['result and error', { jsonrpc: '2.0', id: 1, result: {}, error: { code: 1, message: 'm' } }],
      ['error code a string', { jsonrpc: '2.0', id: 1, error: { code: '1', message: 'm' } }],
      ['error code 1.5', { jsonrpc: '2.0', id: 1, error: { code: 1.5, message: 'm' } }],
      ['error a string', { jsonrpc: '2.0', id: 1, error: 'bad' }],
      ['error without id', { jsonrpc: '2.0', error: { code: 1, message: 'm' } }],
      ['result with jsonrpc 1.0', { jsonrpc: '1.0', id: 1, result: {} }],
      ['result with id true', { jsonrpc: '2.0', id: true, result: {} }],
    )
    .map(([what, value]) => ({ what: `a malformed response: ${what}`, value })),
);

/** One envelope member set wrong on a request that is otherwise good. */
const arbBrokenEnvelope: fc.Arbitrary<Built> = fc
  .record({
    r: arbRequestBody.filter((r) => !r.slow),
    id: arbId,
    fault: fc.oneof(
      fc
        .constantFrom<Wire | undefined>('1.0', '2', '2.0 ', 2, 2.0, null, undefined, {}, ['2.0'])
        .map((jsonrpc) => ({
          what: `jsonrpc ${shortJson(jsonrpc ?? 'missing')}`,
          key: 'jsonrpc',
          value: jsonrpc,
        })),
      arbBadId.map((id) => ({ what: `id ${shortJson(id)}`, key: 'id', value: id as Wire | undefined })),
      fc.constantFrom<Wire>(1, null, true, {}, ['ping'], new Raw('1e400')).map((method) => ({
        what: `method ${shortJson(method)}`,
        key: 'method',
        value: method as Wire | undefined,
      })),
      fc.constantFrom<Wire>([], [1, 2], 'x', 5, true, null, [{ name: 'echo' }]).map((params) => ({
        what: `params ${shortJson(params)}`,
        key: 'params',
        value: params as Wire | undefined,
      })),
    ),
    notification: fc.boolean(),
  })
  .map(({ r, id, fault, notification }) => {
    const base: Record<string, Wire | undefined> = { jsonrpc: '2.0', id, method: r.method, params: r.params };
    if (notification && fault.key !== 'id') base.id = undefined;
    base[fault.key] = fault.value;
    return {
      what: `${r.what} with ${fault.what}${notification && fault.key !== 'id' ? ', as a notification' : ''}`,
      value: obj(base),
    };
  });

const arbOddObject: fc.Arbitrary<Built> = fc.constantFrom<Built>(
  { what: 'an empty object', value: {} },
  { what: 'only jsonrpc', value: { jsonrpc: '2.0' } },
  { what: 'only an id', value: { jsonrpc: '2.0', id: 1 } },
  {
    what: 'duplicate id keys',
    value: new Entries([
      ['jsonrpc', '2.0'],
      ['id', 1],
      ['id', 'two'],
      ['method', 'ping'],
    ]),
  },
  {
    what: 'duplicate method keys, the last unknown',
    value: new Entries([
      ['jsonrpc', '2.0'],
      ['id', 3],
      ['method', 'ping'],
      ['method', 'nope'],
    ]),
  },
  {
    what: '__proto__ carrying the envelope',
    value: new Entries([['__proto__', { jsonrpc: '2.0', id: 1, method: 'ping' }]]),
  },
  { what: 'a method and a result', value: { jsonrpc: '2.0', id: 4, method: 'ping', result: {} } },
);

const arbScalar: fc.Arbitrary<Built> = fc
  .constantFrom<Wire>(null, true, false, 0, 1.5, '', 'ping', new Raw('1e400'))
  .map((value) => ({ what: `the scalar ${shortJson(value)}`, value }));

/** Any single message value (no batch). */
export const arbSingle: fc.Arbitrary<Built> = fc.oneof(
  { weight: 12, arbitrary: arbRequest },
  { weight: 3, arbitrary: arbNotification },
  { weight: 2, arbitrary: arbResponse },
  { weight: 5, arbitrary: arbBrokenEnvelope },
  { weight: 1, arbitrary: arbOddObject },
  { weight: 1, arbitrary: arbScalar },
);

// ---------------------------------------------------------------------------------------
// Batches.

const pingWith = (id: Wire): Wire => ({ jsonrpc: '2.0', id, method: 'ping' });
const slowCall = (id: SlowId, ms: number | undefined): Wire =>
  obj({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'slow', arguments: obj({ ms }) } });
const cancel = (requestId: Wire): Wire => ({
  jsonrpc: '2.0',
  method: 'notifications/cancelled',
  params: { requestId, reason: 'fuzz' },
});

/** Steps of a batch that starts, repeats and cancels slow calls inside itself. */
const arbSlowSteps: fc.Arbitrary<Built> = fc
  .array(
    fc.constantFrom(
      'slow short',
      'slow long, cancelled',
      'echo with the last slow id',
      'slow with the last slow id',
      'ping with the last slow id',
      'cancel the last slow id',
      'cancel an unknown id',
      'ping',
    ),
    { minLength: 1, maxLength: 8 },
  )
  .map((steps) => {
    const items: Wire[] = [];
    steps.forEach((step, i) => {
      const last = new SlowId(false);
      switch (step) {
        case 'slow short':
          items.push(slowCall(new SlowId(true), i % 3));
          break;
        case 'slow long, cancelled':
          // Without the cancel this call would answer after 1 s (the default) or 30 s.
          items.push(slowCall(new SlowId(true), i % 2 === 0 ? undefined : 30_000), cancel(last));
          break;
        case 'echo with the last slow id':
          items.push(
            obj({
              jsonrpc: '2.0',
              id: last,
              method: 'tools/call',
              params: { name: 'echo', arguments: { text: 'dup' } },
            }),
          );
          break;
        case 'slow with the last slow id':
          items.push(slowCall(last, 1));
          break;
        case 'ping with the last slow id':
          items.push(pingWith(last));
          break;
        case 'cancel the last slow id':
          items.push(cancel(last));
          break;
        case 'cancel an unknown id':
          items.push(cancel('never-sent'));
          break;
        case 'ping':
          items.push(pingWith(`p${i}`));
          break;
      }
    });
    return { what: `a batch of slow calls: ${steps.join(', ')}`, value: items };
  });

const arbBatch: fc.Arbitrary<Built> = fc.oneof(
  { weight: 1, arbitrary: fc.constant<Built>({ what: 'an empty batch', value: [] }) },
  {
    weight: 6,
    arbitrary: fc
      .array(
        fc.oneof(
          { weight: 8, arbitrary: arbSingle },
          { weight: 1, arbitrary: fc.constant<Built>({ what: 'a nested empty batch', value: [] }) },
          {
            weight: 1,
            arbitrary: arbPing.map<Built>(() => ({ what: 'a nested batch', value: [pingWith(1)] })),
          },
        ),
        { minLength: 1, maxLength: 8 },
      )
      .map((items) => ({
        what: `a batch of ${items.length}: ${items.map((i) => i.what).join('; ')}`,
        value: items.map((i) => i.value),
      })),
  },
  { weight: 2, arbitrary: arbSlowSteps },
  {
    weight: 1,
    arbitrary: fc
      .record({
        n: fc.integer({ min: 50, max: 300 }),
        kind: fc.constantFrom('pings', 'notifications', 'mixed'),
      })
      .map(({ n, kind }) => ({
        what: `a batch of ${n} ${kind}`,
        value: Array.from({ length: n }, (_, i): Wire => {
          if (kind === 'pings' || (kind === 'mixed' && i % 3 === 0)) return pingWith(i);
          if (kind === 'notifications' || i % 3 === 1)
            return { jsonrpc: '2.0', method: 'notifications/initialized' };
          return {
            jsonrpc: '2.0',
            id: i,
            method: 'tools/call',
            params: { name: 'echo', arguments: { text: `t${i}` } },
          };
        }),
      })),
  },
);

// ---------------------------------------------------------------------------------------
// Text that is not JSON, and damage.

const NOT_JSON: readonly string[] = [
  "{'jsonrpc':'2.0','id':1,'method':'ping'}",
  '{jsonrpc:"2.0",id:1,method:"ping"}',
  '{"jsonrpc":"2.0","id":1,"method":"ping",}',
  '{"jsonrpc":"2.0","id":1,"method":"ping"}}',
  '{"jsonrpc":"2.0","id":1,"method":"ping"}{"jsonrpc":"2.0","id":2,"method":"ping"}',
  '{"jsonrpc":"2.0","id":NaN,"method":"ping"}',
  '{"jsonrpc":"2.0","id":Infinity,"method":"ping"}',
  '{"jsonrpc":"2.0","id":0x10,"method":"ping"}',
  '{"jsonrpc":"2.0","id":01,"method":"ping"}',
  '{"jsonrpc":"2.0","id":1,"method":"ping"} // comment',
  '{"jsonrpc":"2.0","id":1,"method":"p\ting"}',
  'undefined',
  'null null',
  '[',
  ']',
  '{',
  '"',
  'Content-Length: 40',
  '\u00a0',
  '\u000b',
  '\u000c',
  '\u2028',
];

const arbGarbage: fc.Arbitrary<MessageTemplate> = fc.oneof(
  fc.constantFrom(...NOT_JSON).map((text) => ({
    what: `not JSON: ${JSON.stringify(text.slice(0, 40))}`,
    value: new Raw(text),
    layout: 'compact' as const,
  })),
  fc
    .string({ unit: fc.constantFrom(...'{}[]",:0123456789.eE+-truefalsn \t'), maxLength: 30 })
    .map((text) => ({
      what: `JSON-ish characters ${JSON.stringify(text)}`,
      value: new Raw(text),
      layout: 'compact' as const,
    })),
  fc.uint8Array({ maxLength: 40 }).map((bytes) => ({
    what: 'random bytes',
    value: new Raw(''),
    layout: 'compact' as const,
    damage: { op: 'replace' as const, bytes: [...bytes] },
  })),
  fc
    .record({
      n: fc.integer({ min: 10_000, max: 1_000_000 }),
      c: fc.constantFrom('x', '[', '{', '"', ' ', '\u0000'),
    })
    .map(({ n, c }) => ({
      what: `${n} times ${JSON.stringify(c)}`,
      value: new Raw(c.repeat(n)),
      layout: 'compact' as const,
    })),
  fc.integer({ min: 600, max: 20_000 }).map((n) => ({
    what: `a batch nested ${n} deep`,
    value: new Raw(`${'['.repeat(n)}${']'.repeat(n)}`),
    layout: 'compact' as const,
  })),
  fc.integer({ min: 600, max: 20_000 }).map((n) => ({
    what: `ping params nested ${n} deep`,
    value: new Raw(
      `{"jsonrpc":"2.0","id":"deep","method":"ping","params":${'{"a":'.repeat(n)}1${'}'.repeat(n)}}`,
    ),
    layout: 'compact' as const,
  })),
  fc.integer({ min: 10_000, max: 1_000_000 }).map((n) => ({
    what: `echo of ${n} characters`,
    value: {
      jsonrpc: '2.0',
      id: 'huge',
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'h'.repeat(n) } },
    },
    layout: 'compact' as const,
  })),
);

const arbDamage: fc.Arbitrary<Damage> = fc.oneof(
  fc.nat().map((at) => ({ op: 'truncate' as const, at })),
  fc
    .record({ at: fc.nat(), hostile: fc.constantFrom(...HOSTILE_BYTES.filter((h) => !h.bytes.includes(10))) })
    .map(({ at, hostile }) => ({ op: 'insert' as const, at, bytes: hostile.bytes, what: hostile.what })),
  fc.constantFrom('x', ',', '}', ']', '{}', ' 1', '\u0000').map((text) => ({ op: 'append' as const, text })),
);

const arbLayout: fc.Arbitrary<Layout> = fc.oneof(
  { weight: 10, arbitrary: fc.constant<Layout>('compact') },
  { weight: 2, arbitrary: fc.constant<Layout>('spaced') },
  { weight: 2, arbitrary: fc.constant<Layout>('escaped') },
  { weight: 2, arbitrary: fc.constant<Layout>('padded') },
  { weight: 1, arbitrary: fc.constant<Layout>('pretty') },
);

/** One message, valid or broken. */
export const arbMessageTemplate: fc.Arbitrary<MessageTemplate> = fc.oneof(
  {
    weight: 14,
    arbitrary: fc
      .record({ b: arbSingle, layout: arbLayout })
      .map(({ b, layout }) => ({ what: b.what, value: b.value, layout })),
  },
  {
    weight: 4,
    arbitrary: fc
      .record({ b: arbBatch, layout: arbLayout })
      .map(({ b, layout }) => ({ what: b.what, value: b.value, layout })),
  },
  {
    weight: 3,
    arbitrary: fc
      // Not slow calls: damage that still parses could drop their ms and make them wait 1 s.
      .record({
        b: fc.oneof(
          arbRequest.filter((b) => !b.slow),
          arbNotification,
        ),
        damage: arbDamage,
      })
      .map(({ b, damage }) => ({ what: b.what, value: b.value, layout: 'compact' as const, damage })),
  },
  { weight: 2, arbitrary: arbGarbage },
);

/** A message that is a ping with this id: the liveness probe after a case. */
export function pingMessage(id: string): Uint8Array {
  return encoder.encode(JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' }));
}
