import { isUtf8 } from 'node:buffer';
import { type AddressInfo, connect } from 'node:net';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { MAX_BODY_DEPTH } from '../../mocks/limits.js';
import { build as buildMock } from '../../mocks/messages/index.js';
import type { MockMessagesOptions } from '../../mocks/messages/options.js';
import { jsonDepth } from '../../protocol/json/bounded.js';
import { ErrorBody, Message, StreamAccumulator } from '../../protocol/messages/index.js';
import { createFrameDecoder, type SseFrame } from '../../protocol/sse/index.js';
import { nodeHttp } from '../../transports/node-http.js';
import { jsonTextUnit } from '../mutations/json-text-unit.js';
import { type FuzzSurface, FuzzViolation } from '../surface.js';

/*
 * The mock messages service's HTTP input. Most cases go through `inject()` (no socket);
 * the ones only a socket can carry (garbled request lines, odd header bytes, framing and
 * bodies near the limit) go to one listening instance. Each case states its documented
 * outcome; after each case the instance it used must still answer a valid request.
 */

/** Small enough that bodies around it stay fast; the mock's own default is 32 MiB. */
export const BODY_LIMIT = 64 * 1024;
const RIGHT_KEY = 'sk-fuzz-right-key';
const ACCEPTED_VERSION = '2023-06-01';
/** A socket case that has not closed by then is a hang (below the runner's 5 s case limit). */
const SOCKET_DEADLINE_MS = 3_000;
const MARK = '__wirecheck_fuzz_mark__';
const MARK_JSON = JSON.stringify(MARK);

/** default: as `wirecheck serve` runs it; strict: one key, a required and checked version header. */
type Config = 'default' | 'strict';
const CONFIGS: Record<Config, MockMessagesOptions> = {
  default: {},
  strict: { apiKey: RIGHT_KEY, requireVersion: true, acceptedVersions: [ACCEPTED_VERSION] },
};

/** What the service must answer. Messages of errors are exact strings or patterns. */
export type Expected =
  | { outcome: 'message'; stream: boolean; model: string }
  | { outcome: 'error'; status: number; errorType: string; message: string | RegExp }
  | { outcome: 'no body'; status: number }
  | { outcome: 'closed' };

export interface InjectCase {
  via: 'inject';
  config: Config;
  what: string[];
  method: string;
  url: string;
  headers: Record<string, string | string[]>;
  body: Uint8Array | undefined;
  expected: Expected;
}

export interface SocketCase {
  via: 'socket';
  what: string[];
  bytes: Uint8Array;
  expected: Expected;
}

export type HttpCase = InjectCase | SocketCase;

type Obj = Record<string, unknown>;
/** What the route makes of a body that got through framing (media type, size, encoding). */
type Verdict = { kind: 'valid'; stream: boolean; model: string } | { kind: 'refused'; message: RegExp };
interface BodyCase {
  what: string;
  bytes: Uint8Array | undefined;
  verdict: Verdict;
}

const encoder = new TextEncoder();
const utf8 = (s: string) => encoder.encode(s);
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** The refusal names this place ("messages.2.content.0.tool_use_id: ..."), or a deeper one. */
const at = (path: string) => new RegExp(`^${escapeRe(path)}[.:]`);
const NOT_JSON = /^request body is not valid JSON: /;
const NOT_OBJECT = /^request body: expected a JSON object, got /;
const TOO_DEEP = new RegExp(
  `^request body: JSON nested more than ${MAX_BODY_DEPTH} levels deep \\(at offset \\d+\\)`,
);

function pick<T>(items: readonly T[], n: number): T {
  return items[n % items.length] as T;
}

// ---------------------------------------------------------------------------------------
// Valid requests: random conversations that keep every tool rule.

const arbText = fc.oneof(
  { weight: 5, arbitrary: fc.string({ maxLength: 24 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }) },
  // Any scalar value, astral ones included, and lone surrogates (escaped in the JSON body).
  { weight: 1, arbitrary: fc.string({ unit: jsonTextUnit, maxLength: 8 }) },
);
/** Any text, for the places no rule of the mock judges (a tool_result's content). */
const arbTextBlock = arbText.map((text) => ({ type: 'text', text }));
/**
 * Text of a turn or a system block: the real API refuses a turn, or a block of `system`, of ""
 * or of only whitespace, so each holds a letter or digit (blank by no reading of whitespace).
 */
const arbTurnText = arbText.map((text) => (/[\p{L}\p{N}]/u.test(text) ? text : `w${text}`));
const arbSystemBlock = arbTurnText.map((text) => ({ type: 'text', text }));
/** A turn's text blocks; whitespace beside real text is served (only a turn all blank is refused). */
const arbTurnBlocks = fc
  .tuple(fc.array(arbTurnText, { minLength: 1, maxLength: 3 }), fc.option(fc.nat(3), { nil: undefined }))
  .map(([texts, blankAt]) => {
    const blocks = texts.map((text) => ({ type: 'text', text }));
    if (blankAt !== undefined) blocks.splice(blankAt % (blocks.length + 1), 0, { type: 'text', text: ' \n' });
    return blocks;
  });
const arbCommand = fc.oneof(
  fc.constantFrom('ls -la', 'echo hi', 'cat /etc/hostname'),
  fc.string({ maxLength: 16 }),
);

const arbExchange = fc.record(
  {
    user: fc.oneof(arbTurnText, arbTurnBlocks),
    assistantTexts: fc.array(
      arbTurnText.map((text) => ({ type: 'text', text })),
      { maxLength: 2 },
    ),
    toolUses: fc.array(fc.record({ command: arbCommand, custom: fc.boolean() }, { noNullPrototype: true }), {
      maxLength: 2,
    }),
    results: fc.array(
      fc.record(
        {
          content: fc.option(fc.oneof(arbText, fc.array(arbTextBlock, { minLength: 1, maxLength: 2 })), {
            nil: undefined,
          }),
          isError: fc.option(fc.boolean(), { nil: undefined }),
        },
        { noNullPrototype: true },
      ),
      { minLength: 2, maxLength: 2 },
    ),
    textWithResults: fc.boolean(),
  },
  { noNullPrototype: true },
);
type Exchange = typeof arbExchange extends fc.Arbitrary<infer E> ? E : never;

const CUSTOM_TOOL = {
  name: 'get_weather',
  description: 'Weather of a city',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

/** Turns alternating from a user turn; each tool_use is answered in the next user turn. */
function conversation(exchanges: readonly Exchange[], endsWithAssistant: boolean) {
  const messages: Obj[] = [];
  let asked: string[] = [];
  let usesTools = false;
  exchanges.forEach((e, x) => {
    const results = asked.map((id, k) => {
      const r = e.results[k % e.results.length];
      return {
        type: 'tool_result',
        tool_use_id: id,
        ...(r?.content === undefined ? {} : { content: r.content }),
        ...(r?.isError === undefined ? {} : { is_error: r.isError }),
      };
    });
    const content =
      results.length === 0
        ? e.user
        : [...results, ...(e.textWithResults ? [{ type: 'text', text: 'and' }] : [])];
    messages.push({ role: 'user', content });
    asked = [];
    if (x === exchanges.length - 1 && !endsWithAssistant) return;
    const uses = e.toolUses.map((t, k) => ({
      type: 'tool_use',
      id: `toolu_${x}_${k}`,
      name: t.custom ? CUSTOM_TOOL.name : 'bash',
      input: t.custom ? { city: t.command } : { command: t.command },
    }));
    const texts = [...e.assistantTexts];
    // A final assistant turn (a prefill) must not end with whitespace.
    const end = texts.at(-1);
    if (x === exchanges.length - 1 && uses.length === 0 && end)
      texts[texts.length - 1] = { ...end, text: `${end.text}.` };
    const blocks = [...texts, ...uses];
    messages.push({
      role: 'assistant',
      content: blocks.length > 0 ? blocks : [{ type: 'text', text: 'ok' }],
    });
    asked = uses.map((u) => u.id);
    usesTools ||= uses.length > 0;
  });
  return { messages, usesTools };
}

const arbRequest: fc.Arbitrary<Obj> = fc
  .record(
    {
      model: fc.oneof(
        fc.constantFrom('claude-sonnet-4-5', 'mock-model'),
        fc.string({ minLength: 1, maxLength: 24 }),
      ),
      maxTokens: fc.oneof(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 1, max: 64_000 })),
      exchanges: fc.array(arbExchange, { minLength: 1, maxLength: 4 }),
      endsWithAssistant: fc.boolean(),
      stream: fc.constantFrom(undefined, false, true),
      bashType: fc.constantFrom('bash_20250124', 'bash_20241022'),
      offerTools: fc.constantFrom('none', 'empty', 'bash', 'both'),
      optional: fc.record(
        {
          system: fc.oneof(arbTurnText, fc.array(arbSystemBlock, { maxLength: 2 })),
          stop_sequences: fc.array(fc.string({ maxLength: 3 }), { maxLength: 3 }),
          temperature: fc.double({ min: 0, max: 1, noNaN: true }),
          top_k: fc.nat({ max: 500 }),
          metadata: fc.record(
            { user_id: fc.option(fc.string({ maxLength: 10 })) },
            { noNullPrototype: true },
          ),
          x_fuzz_extra: fc.jsonValue({ maxDepth: 2 }),
        },
        { requiredKeys: [], noNullPrototype: true },
      ),
    },
    { noNullPrototype: true },
  )
  .map((r) => {
    const { messages, usesTools } = conversation(r.exchanges, r.endsWithAssistant);
    const offer = usesTools && (r.offerTools === 'none' || r.offerTools === 'empty') ? 'both' : r.offerTools;
    const bash = { type: r.bashType, name: 'bash' };
    const tools =
      offer === 'none' ? undefined : offer === 'empty' ? [] : offer === 'bash' ? [bash] : [bash, CUSTOM_TOOL];
    return {
      model: r.model,
      max_tokens: r.maxTokens,
      messages,
      ...(tools === undefined ? {} : { tools }),
      ...(tools && tools.length > 0 ? { tool_choice: { type: 'auto' } } : {}),
      ...(r.stream === undefined ? {} : { stream: r.stream }),
      ...r.optional,
    };
  });

const validVerdict = (req: Obj): Verdict => ({
  kind: 'valid',
  stream: req.stream === true,
  model: req.model as string,
});

/** The request's JSON with the value at `site` replaced by raw text (which may be no JSON at all). */
function withRawValue(req: Obj, site: Site, raw: string): string {
  const copy = structuredClone(req);
  const messages = copy.messages as Obj[];
  const first = messages[0] as Obj;
  switch (site) {
    case 'model':
    case 'max_tokens':
    case 'temperature':
      copy[site] = MARK;
      break;
    case 'extra':
      copy.x_fuzz_site = MARK;
      break;
    case 'text':
      first.content = MARK;
      break;
    case 'turn extra':
      first.x_fuzz_site = MARK;
      break;
    case 'metadata':
      copy.metadata = { ...(copy.metadata as Obj | undefined), x_fuzz_site: MARK };
      break;
    case 'tool input': {
      const use = messages
        .flatMap((t) => (Array.isArray(t.content) ? (t.content as Obj[]) : []))
        .find((b) => b.type === 'tool_use');
      if (use) use.input = { ...(use.input as Obj), x_fuzz_site: MARK };
      else first.x_fuzz_site = MARK;
      break;
    }
  }
  const text = JSON.stringify(copy);
  const i = text.indexOf(MARK_JSON);
  return `${text.slice(0, i)}${raw}${text.slice(i + MARK_JSON.length)}`;
}

type Site =
  | 'model'
  | 'max_tokens'
  | 'temperature'
  | 'extra'
  | 'text'
  | 'turn extra'
  | 'metadata'
  | 'tool input';
/** Places whose value the schema leaves free: anything JSON is accepted there. */
const FREE_SITES: readonly Site[] = ['extra', 'turn extra', 'metadata', 'tool input'];

const arbValidBody: fc.Arbitrary<BodyCase> = fc
  .tuple(arbRequest, fc.constantFrom('compact', 'pretty', 'tabs', 'padded', 'duplicate key'))
  .map(([req, layout]) => {
    const text =
      layout === 'pretty'
        ? JSON.stringify(req, null, 2)
        : layout === 'tabs'
          ? JSON.stringify(req, null, '\t')
          : layout === 'padded'
            ? ` \r\n\t${JSON.stringify(req)}\n `
            : layout === 'duplicate key'
              ? // The last of duplicate keys wins (ECMA-404 leaves it open; JSON.parse takes the last).
                `{"max_tokens":"junk","model":null,${JSON.stringify(req).slice(1)}`
              : JSON.stringify(req);
    return { what: `valid request (${layout})`, bytes: utf8(text), verdict: validVerdict(req) };
  });

// ---------------------------------------------------------------------------------------
// Malformed JSON text.

const BAD_TOKENS = [
  'NaN',
  'Infinity',
  '-Infinity',
  'undefined',
  "'single'",
  '01',
  '+1',
  '.5',
  '1.',
  '0x10',
  'True',
  'nul',
  '"raw\ttab"',
  '"raw\nnewline"',
  '"bad \\x41 escape"',
  '"short \\u12 escape"',
  '[1,]',
  '{"a":1,}',
  '/* comment */ 1',
  '"unterminated',
  '',
];
const TRAILING_GARBAGE = ['x', '}', ']', ',', '{}', '"a"', '1', 'null', '\u0000', '// c', ' ,', '\uFEFF'];
const ALL_SITES: readonly Site[] = ['model', 'max_tokens', 'temperature', 'text', ...FREE_SITES];

const arbMalformedJson: fc.Arbitrary<BodyCase> = fc
  .tuple(
    arbRequest,
    fc.constantFrom('truncated', 'trailing garbage', 'bad token', 'BOM', 'unbalanced nesting' as const),
    fc.nat(),
    fc.nat(),
  )
  .map(([req, how, n, m]): BodyCase => {
    const text = JSON.stringify(req);
    const refused = { kind: 'refused' as const, message: NOT_JSON };
    switch (how) {
      case 'truncated':
        return {
          what: `truncated at ${n % text.length}`,
          bytes: utf8(text.slice(0, n % text.length)),
          verdict: refused,
        };
      case 'trailing garbage': {
        const junk = pick(TRAILING_GARBAGE, n);
        return { what: `trailing ${JSON.stringify(junk)}`, bytes: utf8(text + junk), verdict: refused };
      }
      case 'bad token': {
        const token = pick(BAD_TOKENS, n);
        const site = pick(ALL_SITES, m);
        return {
          what: `${JSON.stringify(token)} at ${site}`,
          bytes: utf8(withRawValue(req, site, token)),
          verdict: refused,
        };
      }
      case 'BOM':
        // JSON.parse refuses a BOM; RFC 8259 lets a parser ignore one, the mock does not.
        return { what: 'leading BOM', bytes: utf8(`\uFEFF${text}`), verdict: refused };
      default: {
        const depth = 1 + (n % 5000);
        const raw = '['.repeat(depth) + ']'.repeat(depth - 1);
        return {
          what: `${depth} "[" with one "]" missing`,
          bytes: utf8(withRawValue(req, pick(FREE_SITES, m), raw)),
          verdict: refused,
        };
      }
    }
  });

// ---------------------------------------------------------------------------------------
// Invalid UTF-8 (RFC 8259 8.1: JSON text exchanged between systems is UTF-8).

const HOSTILE_UTF8: readonly (readonly number[])[] = [
  [0xff],
  [0xfe],
  [0xc3],
  [0x80],
  [0xf0, 0x9f],
  [0xc0, 0xaf],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
];

const arbInvalidUtf8: fc.Arbitrary<BodyCase> = fc
  .tuple(arbRequest, fc.nat(), fc.nat(), fc.boolean())
  .map(([req, n, offset, inString]) => {
    const hostile = Buffer.from(pick(HOSTILE_UTF8, n));
    const text = inString ? withRawValue(req, pick(ALL_SITES, offset), `"a${MARK}b"`) : JSON.stringify(req);
    const bytes = Buffer.from(text);
    const cut = inString ? bytes.indexOf(MARK) : offset % (bytes.length + 1);
    const end = inString ? cut + MARK.length : cut;
    return {
      what: `bytes ${hostile.toString('hex')} ${inString ? 'inside a string' : `at byte ${cut}`}`,
      bytes: Buffer.concat([bytes.subarray(0, cut), hostile, bytes.subarray(end)]),
      // Not reached: invalid UTF-8 is refused before JSON is looked at.
      verdict: { kind: 'refused' as const, message: NOT_JSON },
    };
  })
  .filter((c) => c.bytes !== undefined && !isUtf8(c.bytes));

// ---------------------------------------------------------------------------------------
// Valid JSON of the wrong shape. Each mutation breaks one place and names it.

interface Refusal {
  body: unknown;
  message: RegExp;
}
type Mutation = (req: Obj, n: number) => Refusal;

const BAD_TOOL_TYPES: unknown[] = [
  'bash_20250125',
  'bash',
  'BASH_20250124',
  'bash_20241022 ',
  'computer_20250124',
  5,
  null,
];
const BAD_BLOCKS: [unknown, string][] = [
  [5, ''],
  ['text', ''],
  [null, ''],
  [[], ''],
  [{ type: 'text' }, '.text'],
  [{ type: 'text', text: 5 }, '.text'],
  [{ type: 'text', text: null }, '.text'],
  [{ type: 5 }, '.type'],
  [{ type: 'tool_use', name: 'bash', input: {} }, '.id'],
  [{ type: 'tool_use', id: 'toolu_x', input: {} }, '.name'],
  [{ type: 'tool_use', id: 'toolu_x', name: 'bash', input: [] }, '.input'],
  [{ type: 'tool_use', id: 'toolu_x', name: 'bash', input: 'ls' }, '.input'],
  [{ type: 'tool_use', id: '', name: 'bash', input: {} }, '.id'],
  [{ type: 'tool_result', content: 'ok' }, '.tool_use_id'],
  [{ type: 'tool_result', tool_use_id: 'toolu_x', content: 5 }, '.content'],
  [{ type: 'tool_result', tool_use_id: 'toolu_x', is_error: 'yes' }, '.is_error'],
];

function turns(req: Obj): Obj[] {
  return req.messages as Obj[];
}
function indexesOf(req: Obj, role: string): number[] {
  return turns(req).flatMap((t, i) => (t.role === role ? [i] : []));
}
/** The turn's content as an array of blocks (a string turn becomes one text block). */
function blocksOf(turn: Obj): unknown[] {
  if (!Array.isArray(turn.content)) turn.content = [{ type: 'text', text: String(turn.content) }];
  return turn.content as unknown[];
}
function offerBash(req: Obj): void {
  const tools = (req.tools as unknown[] | undefined) ?? [];
  if (tools.length === 0) req.tools = [{ type: 'bash_20250124', name: 'bash' }];
}
/** Every turn but a final assistant one: the turns whose text the blank-text rules judge. */
function judgedTurns(req: Obj): number[] {
  const all = turns(req);
  return all.flatMap((t, i) => (i === all.length - 1 && t.role === 'assistant' ? [] : [i]));
}
/** user "x", assistant asking for a tool, user answering it: the tool_use is answered. */
function answeredConversation(req: Obj): void {
  req.messages = [
    { role: 'user', content: 'x' },
    {
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'toolu_fuzz', name: 'bash', input: { command: 'ls' } }],
    },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_fuzz', content: 'ok' }] },
  ];
}
/** user "x", assistant asking for a tool, user "y": the tool_use is never answered. */
function unansweredConversation(req: Obj): void {
  req.messages = [
    { role: 'user', content: 'x' },
    {
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'toolu_fuzz', name: 'bash', input: { command: 'ls' } }],
    },
    { role: 'user', content: 'y' },
  ];
}

const MUTATIONS: Record<string, Mutation> = {
  'body not an object': (_req, n) => ({
    body: pick([null, [], [1], 5, 'text', true, false, 0], n),
    message: NOT_OBJECT,
  }),
  'required field missing': (req, n) => {
    const field = pick(['model', 'max_tokens', 'messages'], n);
    delete req[field];
    return { body: req, message: new RegExp(`^${field}: Field required`) };
  },
  'model of a wrong type': (req, n) => {
    req.model = pick([5, null, [], {}, true, ''], n);
    return { body: req, message: at('model') };
  },
  'max_tokens of a wrong type or range': (req, n) => {
    req.max_tokens = pick(['100', null, 1.5, 0, -3, true, [], {}, 2 ** 53], n);
    return { body: req, message: at('max_tokens') };
  },
  'messages of a wrong type or empty': (req, n) => {
    req.messages = pick([{}, 'hi', null, [], 5, true], n);
    return { body: req, message: at('messages') };
  },
  'stream of a wrong type': (req, n) => {
    req.stream = pick(['true', 'false', 1, 0, null, {}, []], n);
    return { body: req, message: at('stream') };
  },
  'tools of a wrong type': (req, n) => {
    req.tools = pick([{}, 'bash', 5, null, [5], ['bash']], n);
    return { body: req, message: at('tools') };
  },
  'tool with a wrong type string': (req, n) => {
    const tools = [...((req.tools as unknown[] | undefined) ?? [])];
    tools.push({ type: pick(BAD_TOOL_TYPES, n), name: 'bash' });
    req.tools = tools;
    return { body: req, message: at(`tools.${tools.length - 1}`) };
  },
  'custom tool of a wrong shape': (req, n) => {
    const tools = [...((req.tools as unknown[] | undefined) ?? [])];
    tools.push(
      pick(
        [
          { name: 'bad name', input_schema: { type: 'object' } },
          { name: '', input_schema: { type: 'object' } },
          { name: 'x' },
          { name: 'x', input_schema: { type: 'array' } },
          { name: 'x', input_schema: 'object' },
        ],
        n,
      ),
    );
    req.tools = tools;
    return { body: req, message: at(`tools.${tools.length - 1}`) };
  },
  'optional parameter of a wrong type or range': (req, n) => {
    const [field, value] = pick<[string, unknown]>(
      [
        ['temperature', 2],
        ['temperature', -0.5],
        ['temperature', '0.5'],
        ['top_k', -1],
        ['top_k', 1.5],
        ['stop_sequences', 'x'],
        ['stop_sequences', [1]],
        ['system', 5],
        ['system', [{ type: 'image' }]],
        ['metadata', 'x'],
        ['metadata', { user_id: 5 }],
        ['tool_choice', { type: 'sometimes' }],
        ['tool_choice', 'auto'],
      ],
      n,
    );
    req[field] = value;
    return { body: req, message: at(field) };
  },
  'turn not an object': (req, n) => {
    const i = n % turns(req).length;
    (req.messages as unknown[])[i] = pick([5, 'user', null, [], true], n);
    return { body: req, message: at(`messages.${i}`) };
  },
  'bad role': (req, n) => {
    const i = n % turns(req).length;
    const turn = turns(req)[i] as Obj;
    const role = pick([undefined, 'system', 'User', '', 'tool', 5, null], n);
    if (role === undefined) delete turn.role;
    else turn.role = role;
    return { body: req, message: at(`messages.${i}.role`) };
  },
  'content of a wrong type': (req, n) => {
    const i = n % turns(req).length;
    const turn = turns(req)[i] as Obj;
    const content = pick([undefined, 5, null, {}, true], n);
    if (content === undefined) delete turn.content;
    else turn.content = content;
    return { body: req, message: at(`messages.${i}.content`) };
  },
  'empty content': (req, n) => {
    // Any turn but a final assistant one (a prefill, which may be empty).
    const all = turns(req);
    const last = all.length - 1;
    const i = pick(
      all.map((_, k) => k).filter((k) => !(k === last && (all[k] as Obj).role === 'assistant')),
      n,
    );
    (all[i] as Obj).content = pick(['', []], n);
    return {
      body: req,
      message: new RegExp(
        `^messages\\.${i}: all messages must have non-empty content except for the optional final assistant message`,
      ),
    };
  },
  'empty text block': (req, n) => {
    const i = pick(judgedTurns(req), n);
    const blocks = blocksOf(turns(req)[i] as Obj);
    const j = n % (blocks.length + 1);
    blocks.splice(j, 0, { type: 'text', text: '' });
    return {
      body: req,
      message: new RegExp(
        `^messages: text content blocks must be non-empty \\(messages\\.${i}\\.content\\.${j} is ""\\)$`,
      ),
    };
  },
  'system block of blank text': (req, n) => {
    if (n % 5 === 4) {
      // A string is one block to the real API.
      req.system = '';
      return { body: req, message: /^system: text content blocks must be non-empty \(system is ""\)$/ };
    }
    const blank = pick(['', ' ', '\n', '\t \r\n'], n);
    const system = Array.isArray(req.system) ? (req.system as Obj[]) : [];
    const j = n % (system.length + 1);
    system.splice(j, 0, { type: 'text', text: blank });
    req.system = system;
    const rule = blank === '' ? 'be non-empty' : 'contain non-whitespace text';
    return {
      body: req,
      message: new RegExp(`^system: text content blocks must ${rule} \\(system\\.${j} is `),
    };
  },
  'turn of blank text': (req, n) => {
    const i = pick(judgedTurns(req), n);
    const turn = turns(req)[i] as Obj;
    const blank = pick([' ', '\n', '\t \r\n', '  \n\n'], n);
    if (turn.role === 'user') {
      turn.content = pick(
        [
          [{ type: 'text', text: blank }],
          [
            { type: 'text', text: blank },
            { type: 'text', text: blank },
          ],
        ],
        n,
      );
    } else {
      // Its tool_use blocks stay: whitespace beside them is still a turn without text.
      const blocks = (blocksOf(turn) as Obj[]).map((b) => (b.type === 'text' ? { ...b, text: blank } : b));
      turn.content = blocks.some((b) => b.type === 'text')
        ? blocks
        : [{ type: 'text', text: blank }, ...blocks];
    }
    return {
      body: req,
      message: new RegExp(
        `^messages: text content blocks must contain non-whitespace text \\(messages\\.${i} has no text but whitespace`,
      ),
    };
  },
  'prefill ending in whitespace': (req, n) => {
    const all = turns(req);
    const blank = pick([' ', '\n', '\t', ' \r\n'], n);
    const last = all[all.length - 1] as Obj;
    if (last.role === 'assistant') blocksOf(last).push({ type: 'text', text: `and${blank}` });
    else {
      const text = `Sure${blank}`;
      all.push({ role: 'assistant', content: n % 2 === 0 ? text : [{ type: 'text', text }] });
    }
    return {
      body: req,
      message: new RegExp(
        `^messages: final assistant content cannot end with trailing whitespace \\(messages\\.${all.length - 1}[ .]`,
      ),
    };
  },
  'text before the tool results': (req, n) => {
    const answering = (t: Obj) =>
      t.role === 'user' &&
      Array.isArray(t.content) &&
      (t.content as Obj[]).some((b) => b.type === 'tool_result');
    let candidates = turns(req).flatMap((t, i) => (answering(t) ? [i] : []));
    if (candidates.length === 0) {
      answeredConversation(req);
      offerBash(req);
      candidates = [2];
    }
    const i = pick(candidates, n);
    const blocks = blocksOf(turns(req)[i] as Obj) as Obj[];
    const lastResult = blocks.findLastIndex((b) => b.type === 'tool_result');
    const j = n % (lastResult + 1);
    blocks.splice(j, 0, { type: 'text', text: 'Here are the results:' });
    return {
      body: req,
      message: new RegExp(
        `^messages\\.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: .* ` +
          `come after the text block at messages\\.${i}\\.content\\.${j}: tool_result blocks must come first`,
      ),
    };
  },
  'block of a wrong shape': (req, n) => {
    const i = n % turns(req).length;
    const blocks = blocksOf(turns(req)[i] as Obj);
    const [block, field] = pick(BAD_BLOCKS, n);
    blocks.push(block);
    return { body: req, message: at(`messages.${i}.content.${blocks.length - 1}${field}`) };
  },
  'tool_use in a user turn': (req, n) => {
    const i = pick(indexesOf(req, 'user'), n);
    const blocks = blocksOf(turns(req)[i] as Obj);
    blocks.push({ type: 'tool_use', id: 'toolu_fuzz_user', name: 'bash', input: { command: 'ls' } });
    return {
      body: req,
      message: new RegExp(
        `^messages\\.${i}\\.content\\.${blocks.length - 1}: tool_use blocks may only appear in assistant turns`,
      ),
    };
  },
  'tool_result in an assistant turn': (req, n) => {
    const assistants = indexesOf(req, 'assistant');
    let i: number;
    if (assistants.length === 0) {
      i = turns(req).length;
      turns(req).push({ role: 'assistant', content: [] });
    } else i = pick(assistants, n);
    const blocks = blocksOf(turns(req)[i] as Obj);
    blocks.push({ type: 'tool_result', tool_use_id: 'toolu_fuzz', content: 'ok' });
    return {
      body: req,
      message: new RegExp(
        `^messages\\.${i}\\.content\\.${blocks.length - 1}: tool_result blocks may only appear in user turns`,
      ),
    };
  },
  'tool_result without its tool_use': (req, n) => {
    const i = pick(indexesOf(req, 'user'), n);
    const blocks = blocksOf(turns(req)[i] as Obj);
    blocks.push({ type: 'tool_result', tool_use_id: 'toolu_fuzz_unmatched', content: 'ok' });
    offerBash(req);
    return {
      body: req,
      message: new RegExp(`^messages\\.${i}\\.content\\.${blocks.length - 1}: unexpected \`tool_use_id\``),
    };
  },
  'tool_use not answered in the next turn': (req, n) => {
    const candidates = indexesOf(req, 'assistant').filter((i) => i + 1 < turns(req).length);
    let i: number;
    if (candidates.length === 0) {
      unansweredConversation(req);
      i = 1;
    } else {
      i = pick(candidates, n);
      blocksOf(turns(req)[i] as Obj).push({
        type: 'tool_use',
        id: 'toolu_fuzz_unanswered',
        name: 'bash',
        input: {},
      });
    }
    offerBash(req);
    return {
      body: req,
      message: new RegExp(`^messages\\.${i + 1}: \`tool_use\` ids were found without \`tool_result\` blocks`),
    };
  },
  'tool blocks without tools': (req, n) => {
    const hasToolBlocks = turns(req).some(
      (t) => Array.isArray(t.content) && (t.content as Obj[]).some((b) => b.type === 'tool_use'),
    );
    if (!hasToolBlocks) unansweredConversation(req);
    if (n % 2 === 0) delete req.tools;
    else req.tools = [];
    delete req.tool_choice;
    return {
      body: req,
      message: /^Requests which include `tool_use` or `tool_result` blocks must define tools\./,
    };
  },
};
const MUTATION_NAMES = Object.keys(MUTATIONS);

/** A valid body with one rule broken on purpose, and the refusal it must get. */
export const arbWrongShape: fc.Arbitrary<BodyCase> = fc
  .tuple(arbRequest, fc.constantFrom(...MUTATION_NAMES), fc.nat())
  .map(([req, name, n]) => {
    const { body, message } = (MUTATIONS[name] as Mutation)(structuredClone(req), n);
    return { what: name, bytes: utf8(JSON.stringify(body)), verdict: { kind: 'refused', message } };
  });

// ---------------------------------------------------------------------------------------
// Numbers as spelled in JSON, deep nesting, sizes, empty and junk bodies.

const NUMBER_SPELLINGS = [
  '1e400',
  '-1e400',
  '1e-400',
  '1e20',
  '9007199254740993',
  '123456789012345678901234567890',
  '1.0',
  '1e2',
  '1E3',
  '10E-1',
  '100.5',
  '-0',
  '0',
  '0.5',
  '5e-1',
  '1.0000000000000001',
  '2',
  '64000',
];

/** Whether the schema accepts the number JSON.parse makes of `spelling` at `site`. */
function numberAccepted(site: Site, spelling: string): boolean {
  const n = Number(spelling);
  if (site === 'max_tokens') return Number.isSafeInteger(n) && n > 0;
  if (site === 'temperature') return Number.isFinite(n) && n >= 0 && n <= 1;
  return FREE_SITES.includes(site);
}

const arbNumbers: fc.Arbitrary<BodyCase> = fc
  .tuple(
    arbRequest,
    fc.constantFrom(...NUMBER_SPELLINGS),
    fc.constantFrom<Site>('max_tokens', 'temperature', 'extra', 'tool input'),
  )
  .map(([req, spelling, site]) => ({
    what: `${spelling} at ${site}`,
    bytes: utf8(withRawValue(req, site, spelling)),
    verdict: numberAccepted(site, spelling) ? validVerdict(req) : { kind: 'refused', message: at(site) },
  }));

const NESTINGS = {
  arrays: (d: number) => '['.repeat(d) + ']'.repeat(d),
  objects: (d: number) => `${'{"a":'.repeat(d)}null${'}'.repeat(d)}`,
  mixed: (d: number) => `${'[{"a":'.repeat(d)}1${'}]'.repeat(d)}`,
};

const arbDeep: fc.Arbitrary<BodyCase> = fc
  .tuple(
    arbRequest,
    fc.oneof(
      fc.integer({ min: 1, max: 64 }),
      fc.constantFrom(500, 2_000, 5_000, 8_000, 10_000, 20_000, 30_000),
    ),
    fc.constantFrom<keyof typeof NESTINGS>('arrays', 'objects', 'mixed'),
    fc.constantFrom<Site | 'whole body'>('whole body', 'model', 'max_tokens', ...FREE_SITES),
  )
  .map(([req, depth, shape, site]) => {
    const raw = NESTINGS[shape](depth);
    const what = `${shape} nested ${depth} deep at ${site}`;
    if (site === 'whole body') {
      const message = shape === 'objects' ? /^model: Field required/ : NOT_OBJECT;
      return { what, bytes: utf8(raw), verdict: { kind: 'refused', message } };
    }
    const verdict: Verdict = FREE_SITES.includes(site)
      ? validVerdict(req)
      : { kind: 'refused', message: at(site) };
    return { what, bytes: utf8(withRawValue(req, site, raw)), verdict };
  });
/** A valid request padded to exactly `size` bytes (when it is not already longer). */
function padded(req: Obj, site: 'extra' | 'text', size: number, char: string): Uint8Array {
  const base = Buffer.byteLength(withRawValue(req, site, '""'));
  const room = Math.max(0, size - base);
  const charBytes = Buffer.byteLength(char);
  // At the text site the pad is the first turn, which may not be empty: a request already
  // longer than `size` keeps one character there.
  const pad = char.repeat(Math.floor(room / charBytes)) + 'x'.repeat(room % charBytes) || 'x';
  const bytes = utf8(withRawValue(req, site, JSON.stringify(pad)));
  if (room > 0 && bytes.length !== size) throw new Error(`padding made ${bytes.length} bytes, not ${size}`);
  return bytes;
}

const arbSize = fc.oneof(
  fc.integer({ min: BODY_LIMIT - 40, max: BODY_LIMIT + 40 }),
  fc.constantFrom(BODY_LIMIT, BODY_LIMIT + 1),
  fc.integer({ min: 1_000, max: 2 * BODY_LIMIT }),
);

const arbSized: fc.Arbitrary<BodyCase> = fc
  .tuple(
    arbRequest,
    arbSize,
    fc.constantFrom<'extra' | 'text'>('extra', 'text'),
    fc.constantFrom('a', 'é', '你', '😀'),
  )
  .map(([req, size, site, char]) => {
    const bytes = padded(req, site, size, char);
    return {
      what: `${bytes.length} bytes padded with ${char} at ${site}`,
      bytes,
      verdict: validVerdict(req),
    };
  });

const arbJunk: fc.Arbitrary<BodyCase> = fc
  .oneof(
    fc.constantFrom('', ' ', '\r\n\t ', 'null', '[]', '"model"', '0', 'true').map((s) => utf8(s)),
    fc.string({ maxLength: 40 }).map((s) => utf8(s)),
    fc.uint8Array({ maxLength: 40 }),
    fc.integer({ min: BODY_LIMIT + 1, max: BODY_LIMIT + 5_000 }).map((n) => utf8('x'.repeat(n))),
  )
  .filter((bytes) => !isUtf8(bytes) || junkKind(Buffer.from(bytes).toString()) !== 'object')
  .map((bytes) => {
    const kind = isUtf8(bytes) ? junkKind(Buffer.from(bytes).toString()) : 'not json';
    return {
      what: `junk (${bytes.length} bytes)`,
      bytes,
      verdict: { kind: 'refused', message: kind === 'not json' ? NOT_JSON : NOT_OBJECT },
    };
  });

function junkKind(text: string): 'not json' | 'not an object' | 'object' {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'not json';
  }
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? 'object' : 'not an object';
}

const arbBody: fc.Arbitrary<BodyCase> = fc.oneof(
  { weight: 30, arbitrary: arbValidBody },
  { weight: 12, arbitrary: arbMalformedJson },
  { weight: 6, arbitrary: arbInvalidUtf8 },
  { weight: 26, arbitrary: arbWrongShape },
  { weight: 6, arbitrary: arbNumbers },
  { weight: 6, arbitrary: arbDeep },
  { weight: 6, arbitrary: arbSized },
  { weight: 5, arbitrary: arbJunk },
  {
    weight: 1,
    arbitrary: fc.constant<BodyCase>({
      what: 'no body',
      bytes: undefined,
      verdict: { kind: 'refused', message: NOT_JSON },
    }),
  },
);

// ---------------------------------------------------------------------------------------
// Headers.

interface HeaderPart {
  what: string;
  headers: Record<string, string | string[]>;
}
const arbKeyValue = fc.oneof(fc.constant(RIGHT_KEY), fc.stringMatching(/^[A-Za-z0-9_-]{1,32}$/));

/** The key headers as sent, and the key they present (x-api-key wins over Bearer; blank is none). */
const KEY_VARIANTS = [
  'x-api-key',
  'X-Api-Key',
  'bearer',
  'lowercase bearer',
  'both',
  'blank x-api-key, bearer',
  'x-api-key twice',
  'none',
  'blank x-api-key',
  'bearer without key',
  'basic',
  'no scheme',
] as const;
const arbKey = (
  variants: readonly (typeof KEY_VARIANTS)[number][],
): fc.Arbitrary<HeaderPart & { key: string | undefined }> =>
  fc.tuple(fc.constantFrom(...variants), arbKeyValue, arbKeyValue).map(([how, k1, k2]) => {
    const k = (headers: Record<string, string | string[]>, key: string | undefined) => ({
      what: how,
      headers,
      key,
    });
    switch (how) {
      case 'x-api-key':
        return k({ 'x-api-key': k1 }, k1);
      case 'X-Api-Key':
        return k({ 'X-Api-Key': ` ${k1} ` }, k1);
      case 'bearer':
        return k({ authorization: `Bearer ${k1}` }, k1);
      case 'lowercase bearer':
        return k({ Authorization: `bearer  ${k1}` }, k1);
      case 'both':
        return k({ 'x-api-key': k1, authorization: `Bearer ${k2}` }, k1);
      case 'blank x-api-key, bearer':
        return k({ 'x-api-key': '  ', authorization: `Bearer ${k2}` }, k2);
      case 'x-api-key twice':
        // Repeated headers are joined with ", " (Node's rule), so the key is both values.
        return k({ 'x-api-key': [k1, k2] }, `${k1}, ${k2}`);
      case 'none':
        return k({}, undefined);
      case 'blank x-api-key':
        return k({ 'x-api-key': '' }, undefined);
      case 'bearer without key':
        return k({ authorization: 'Bearer ' }, undefined);
      case 'basic':
        return k({ authorization: `Basic ${Buffer.from(`u:${k1}`).toString('base64')}` }, undefined);
      default:
        return k({ authorization: k1 }, undefined);
    }
  });

const VALID_CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json;charset=UTF-8',
  'APPLICATION/JSON',
  'text/plain',
  'text/plain; charset=utf-8',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
  '*/*',
];
/** Not a media type at all (RFC 9110 8.3.1: type "/" subtype): fastify answers 415. */
const INVALID_CONTENT_TYPES = [
  '',
  'json',
  'application',
  'application/',
  '/json',
  'application /json',
  'application/json, text/plain',
  ';',
  '??',
];

const arbContentType: fc.Arbitrary<{ what: string; value: string | undefined; valid: boolean }> = fc.oneof(
  {
    weight: 17,
    arbitrary: fc
      .constantFrom(...VALID_CONTENT_TYPES)
      .map((v) => ({ what: `content-type ${v}`, value: v, valid: true })),
  },
  { weight: 2, arbitrary: fc.constant({ what: 'no content-type', value: undefined, valid: true }) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(...INVALID_CONTENT_TYPES)
      .map((v) => ({ what: `content-type ${JSON.stringify(v)}`, value: v, valid: false })),
  },
);

/** Version headers, and the one the mock reads (service-version first). */
const arbVersion = fc.constantFrom<HeaderPart & { version: string | undefined }>(
  { what: 'no version', headers: {}, version: undefined },
  { what: 'service-version', headers: { 'service-version': ACCEPTED_VERSION }, version: ACCEPTED_VERSION },
  {
    what: 'anthropic-version',
    headers: { 'anthropic-version': ACCEPTED_VERSION },
    version: ACCEPTED_VERSION,
  },
  { what: 'SDK 1.x version', headers: { 'anthropic-version': '2026-10-21' }, version: '2026-10-21' },
  { what: 'odd version', headers: { 'anthropic-version': 'banana' }, version: 'banana' },
  {
    what: 'both versions, service-version odd',
    headers: { 'service-version': 'x', 'anthropic-version': ACCEPTED_VERSION },
    version: 'x',
  },
  {
    what: 'both versions, anthropic-version odd',
    headers: { 'service-version': ACCEPTED_VERSION, 'anthropic-version': 'x' },
    version: ACCEPTED_VERSION,
  },
);

const arbExtraHeaders: fc.Arbitrary<Record<string, string>> = fc.record(
  {
    accept: fc.constantFrom('application/json', 'text/event-stream', '*/*'),
    'user-agent': fc.constantFrom('curl/8.0', 'Anthropic/JS 1.12.0', ''),
    'anthropic-beta': fc.constantFrom('tools-2024-04-04', 'x'),
    'x-fuzz-odd': fc.string({ maxLength: 30 }).map((s) => s.replace(/[^\x20-\x7e]/g, '').trim()),
  },
  { requiredKeys: [], noNullPrototype: true },
);

// ---------------------------------------------------------------------------------------
// Routes, and the outcome of an inject case.

const MESSAGES_URLS = ['/v1/messages', '/v1/messages?beta=true'];
const OTHER_URLS = [
  '/v1/messages/',
  '/v1/message',
  '/V1/messages',
  '/v1//messages',
  '/',
  '/v1',
  '/v2/messages',
  '/v1/messages/count_tokens',
  '/v1/models',
  '/v1/messages%00',
  '/v1/messages;x',
  '/__wirecheck/nope',
];
/** fastify reads no body for these (its "bodyless" methods). */
const BODYLESS = new Set(['GET', 'HEAD']);

const arbRoute = fc.oneof(
  { weight: 17, arbitrary: fc.constantFrom(...MESSAGES_URLS).map((url) => ({ method: 'POST', url })) },
  {
    weight: 3,
    arbitrary: fc.record(
      {
        method: fc.constantFrom('GET', 'HEAD', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'POST'),
        url: fc.constantFrom('/v1/messages', ...OTHER_URLS),
      },
      { noNullPrototype: true },
    ),
  },
);

function isMessagesRoute(method: string, url: string): boolean {
  return method === 'POST' && MESSAGES_URLS.includes(url);
}

function error(status: number, errorType: string, message: string | RegExp): Expected {
  return { outcome: 'error', status, errorType, message };
}

/**
 * The documented outcome, stage by stage as the mock handles a request:
 * 1. POST /v1/messages checks headers before the body (messages-route.ts headerRefusal):
 *    no key 401, a key other than `apiKey` 401, with requireVersion no version 400, a
 *    version outside acceptedVersions 400;
 * 2. framing of any body fastify reads (every route, unknown ones too): a content-type that
 *    is no media type 415, more than bodyLimit bytes 413 request_too_large, bytes that are
 *    not UTF-8 400;
 * 3. any other method or path: 404 not_found_error (HEAD: the status alone);
 * 4. the body: not JSON 400, JSON of the wrong shape 400 naming the place, else 200 with
 *    the message, buffered or streamed as `stream` says.
 */
function expectedOutcome(
  config: Config,
  method: string,
  url: string,
  key: string | undefined,
  version: string | undefined,
  contentType: { value: string | undefined; valid: boolean },
  body: BodyCase,
): Expected {
  const messagesRoute = isMessagesRoute(method, url);
  if (messagesRoute) {
    if (key === undefined) return error(401, 'authentication_error', 'x-api-key header is required');
    if (config === 'strict') {
      if (key !== RIGHT_KEY) return error(401, 'authentication_error', 'invalid x-api-key');
      if (version === undefined)
        return error(400, 'invalid_request_error', /^anthropic-version: header is required/);
      if (version !== ACCEPTED_VERSION) {
        return error(
          400,
          'invalid_request_error',
          new RegExp(`: "${escapeRe(version)}" is not a valid version; expected one of ${ACCEPTED_VERSION}$`),
        );
      }
    }
  }
  const bytes = body.bytes;
  const bodyRead =
    !BODYLESS.has(method) && (contentType.value !== undefined || (bytes !== undefined && bytes.length > 0));
  if (bodyRead) {
    if (!contentType.valid) return error(415, 'invalid_request_error', 'Unsupported Media Type');
    if (bytes && bytes.length > BODY_LIMIT) {
      return error(
        413,
        'request_too_large',
        `Request exceeds the maximum allowed number of bytes (${BODY_LIMIT}).`,
      );
    }
    if (bytes && !isUtf8(bytes))
      return error(400, 'invalid_request_error', 'request body is not valid UTF-8');
  }
  if (!messagesRoute) {
    return method === 'HEAD'
      ? { outcome: 'no body', status: 404 }
      : error(404, 'not_found_error', `Not found: ${method} ${url}`);
  }
  // The mock measures the depth before it parses: deeper than MAX_BODY_DEPTH is refused first.
  if (bytes && jsonDepth(Buffer.from(bytes).toString()).depth > MAX_BODY_DEPTH)
    return error(400, 'invalid_request_error', TOO_DEEP);
  const v = body.verdict;
  return v.kind === 'valid'
    ? { outcome: 'message', stream: v.stream, model: v.model }
    : error(400, 'invalid_request_error', v.message);
}

const arbInjectCase: fc.Arbitrary<InjectCase> = fc
  .record(
    {
      config: fc.constantFrom<Config>('default', 'default', 'default', 'default', 'default', 'strict'),
      route: arbRoute,
      key: fc.oneof(
        { weight: 5, arbitrary: arbKey(['x-api-key']) },
        { weight: 2, arbitrary: arbKey(KEY_VARIANTS) },
      ),
      rightKey: fc.boolean(),
      contentType: arbContentType,
      version: arbVersion,
      extra: arbExtraHeaders,
      body: arbBody,
    },
    { noNullPrototype: true },
  )
  .map((r): InjectCase => {
    const { method, url } = r.route;
    // The strict service wants RIGHT_KEY: send it more often than chance would.
    const key =
      r.config === 'strict' && r.rightKey && r.key.what === 'x-api-key'
        ? { ...r.key, headers: { 'x-api-key': RIGHT_KEY }, key: RIGHT_KEY }
        : r.key;
    const headers: Record<string, string | string[]> = {
      ...r.extra,
      ...r.version.headers,
      ...key.headers,
      ...(r.contentType.value === undefined ? {} : { 'content-type': r.contentType.value }),
    };
    const body = BODYLESS.has(method) ? { ...r.body, bytes: undefined } : r.body;
    return {
      via: 'inject',
      config: r.config,
      what: [body.what, key.what, r.contentType.what, r.version.what],
      method,
      url,
      headers,
      body: body.bytes,
      expected: expectedOutcome(r.config, method, url, key.key, r.version.version, r.contentType, body),
    };
  });

// ---------------------------------------------------------------------------------------
// Socket cases: what only a real connection carries.

const MALFORMED_HTTP = /^malformed HTTP request: /;
const malformed = (status = 400): Expected => error(status, 'invalid_request_error', MALFORMED_HTTP);
const GOOD_BODY = JSON.stringify({
  model: 'mock-model',
  max_tokens: 64,
  messages: [{ role: 'user', content: 'are you there?' }],
});

/** A request on the wire; every one carries Host (see the report: a missing Host gets a bare 400). */
function wire(
  requestLine: string,
  headerLines: readonly (string | Buffer)[],
  body: string | Uint8Array = GOOD_BODY,
): Buffer {
  const bodyBytes = typeof body === 'string' ? Buffer.from(body) : Buffer.from(body);
  const head = [
    requestLine,
    'host: 127.0.0.1',
    ...headerLines,
    `content-length: ${bodyBytes.length}`,
    'connection: close',
  ];
  const parts = head.flatMap((line) => [
    typeof line === 'string' ? Buffer.from(line, 'latin1') : line,
    Buffer.from('\r\n'),
  ]);
  return Buffer.concat([...parts, Buffer.from('\r\n'), bodyBytes]);
}
const OK_LINE = 'POST /v1/messages HTTP/1.1';
const KEY_LINE = 'x-api-key: sk-socket';
const goodMessage: Expected = { outcome: 'message', stream: false, model: 'mock-model' };

const UNKNOWN_METHOD = fc.stringMatching(/^[A-Z]{3,9}$/).filter((m) => !nodeHttp.METHODS.includes(m));
const arbGarbledLine: fc.Arbitrary<{ what: string; line: string }> = fc.oneof(
  fc
    .constantFrom('post', 'Post', 'get')
    .map((m) => ({ what: 'lowercase method', line: `${m} /v1/messages HTTP/1.1` })),
  UNKNOWN_METHOD.map((m) => ({ what: 'unknown method', line: `${m} /v1/messages HTTP/1.1` })),
  fc
    .constantFrom('HTTP/1.2', 'HTTP/3.0', 'HTTP/1', 'HTTP/', 'HTTPS/1.1', 'http/1.1', 'HTTP/1.1x', 'HTTP/11')
    .map((v) => ({ what: `version ${v}`, line: `POST /v1/messages ${v}` })),
  fc
    .constantFrom('/v1/mes sages', '/v1/\x01messages', '/v1/m\xe9ssages', '', '/v1/messages\x7f')
    .map((u) => ({ what: 'bad request target', line: `POST ${u} HTTP/1.1` })),
  fc
    .constantFrom(
      'POST\t/v1/messages\tHTTP/1.1',
      'POST /v1/messages HTTP/1.1 ',
      ' POST /v1/messages HTTP/1.1',
    )
    .map((line) => ({
      what: 'bad separators',
      line,
    })),
  // Junk that cannot start a method (llhttp skips leading CR/LF, methods are upper case).
  fc
    .tuple(
      fc.constantFrom(...'abcxyz0123456789{}<>@#%&*!~'),
      fc.string({ unit: 'binary-ascii', maxLength: 40 }),
    )
    .map(([first, rest]) => ({ what: 'junk request line', line: `${first}${rest.replace(/[\r\n]/g, '')}` })),
);

const CTL_BYTES = [0x00, 0x01, 0x07, 0x08, 0x0b, 0x0c, 0x0e, 0x1f, 0x7f];
const arbOddHeader: fc.Arbitrary<{ what: string; lines: (string | Buffer)[]; expected: Expected }> = fc.oneof(
  fc
    .tuple(
      fc.uint8Array({ minLength: 1, maxLength: 8 }).map((b) => b.map((x) => 0x80 | x)),
      fc.boolean(),
    )
    .map(([high, inKey]) => ({
      what: `bytes ${Buffer.from(high).toString('hex')} (obs-text) in ${inKey ? 'x-api-key' : 'x-fuzz-odd'}`,
      lines: inKey
        ? [Buffer.concat([Buffer.from('x-api-key: k'), Buffer.from(high)])]
        : [KEY_LINE, Buffer.concat([Buffer.from('x-fuzz-odd: '), Buffer.from(high)])],
      expected: goodMessage,
    })),
  fc.constantFrom(...CTL_BYTES).map((b) => ({
    what: `control byte ${b.toString(16)} in a header value`,
    lines: [KEY_LINE, Buffer.concat([Buffer.from('x-fuzz-odd: a'), Buffer.from([b]), Buffer.from('b')])],
    expected: malformed(),
  })),
  fc
    .constantFrom(
      'x fuzz: 1',
      'x-fuzz : 1',
      'x-fuzz(1): 1',
      'x-fuzz@: 1',
      ': empty name',
      'no colon here',
      '"x": 1',
      ' folded: 1',
    )
    .map((line) => ({
      what: `bad header line ${JSON.stringify(line)}`,
      lines: [KEY_LINE, line],
      expected: malformed(),
    })),
  fc.constantFrom('x-fuzz: a\rb', 'x-fuzz: a\nb').map((line) => ({
    what: 'bare CR or LF in a header',
    lines: [KEY_LINE, line],
    expected: malformed(),
  })),
  fc.integer({ min: 17 * 1024, max: 40 * 1024 }).map((n) => ({
    what: `a ${n}-byte header value`,
    lines: [KEY_LINE, `x-fuzz-big: ${'a'.repeat(n)}`],
    expected: malformed(431),
  })),
  fc.integer({ min: 400, max: 1500 }).map((n) => ({
    what: `${n} headers`,
    lines: [KEY_LINE, ...Array.from({ length: n }, (_, i) => `x-fuzz-${i}: ${'v'.repeat(40)}`)],
    expected: malformed(431),
  })),
  fc.boolean().map((right) => ({
    what: 'x-api-key twice',
    lines: right ? [KEY_LINE, KEY_LINE] : ['x-api-key: ', 'X-API-KEY: k2'],
    expected: goodMessage,
  })),
);

/** Framing: content-length and transfer-encoding as sent, complete or not. */
function framed(what: string, headerLines: string[], body: string | Buffer, expected: Expected) {
  const head = [OK_LINE, 'host: 127.0.0.1', KEY_LINE, ...headerLines, 'connection: close'].join('\r\n');
  return { what, bytes: Buffer.concat([Buffer.from(`${head}\r\n\r\n`), Buffer.from(body)]), expected };
}

function chunked(body: Uint8Array, cuts: readonly number[]): Buffer {
  const points = [...new Set(cuts.map((c) => c % (body.length + 1)))].sort((a, b) => a - b);
  const pieces: Buffer[] = [];
  let from = 0;
  for (const to of [...points, body.length]) {
    if (to > from)
      pieces.push(
        Buffer.from(`${(to - from).toString(16)}\r\n`),
        Buffer.from(body.subarray(from, to)),
        Buffer.from('\r\n'),
      );
    from = Math.max(from, to);
  }
  return Buffer.concat([...pieces, Buffer.from('0\r\n\r\n')]);
}

const arbFraming: fc.Arbitrary<{ what: string; bytes: Buffer; expected: Expected }> = fc.oneof(
  fc
    .constantFrom('abc', '-1', '1.5', '0x10', '')
    .map((v) =>
      framed(`content-length ${JSON.stringify(v)}`, [`content-length: ${v}`], GOOD_BODY, malformed()),
    ),
  fc.constant(
    framed(
      'two different content-lengths',
      ['content-length: 5', 'content-length: 6'],
      GOOD_BODY,
      malformed(),
    ),
  ),
  fc.constant(
    framed(
      'content-length and chunked',
      [`content-length: ${GOOD_BODY.length}`, 'transfer-encoding: chunked'],
      chunked(utf8(GOOD_BODY), []),
      malformed(),
    ),
  ),
  fc
    .constantFrom('gzip', 'chunked, gzip', 'identity, chunked;x')
    .map((te) => framed(`transfer-encoding ${te}`, [`transfer-encoding: ${te}`], GOOD_BODY, malformed())),
  fc.constant(
    framed('bad chunk size', ['transfer-encoding: chunked'], 'zz\r\nabc\r\n0\r\n\r\n', malformed()),
  ),
  fc
    .integer({ min: 1, max: 5_000 })
    .map((extra) =>
      framed(
        `body ${extra} bytes short of content-length`,
        [`content-length: ${GOOD_BODY.length + extra}`],
        GOOD_BODY,
        malformed(),
      ),
    ),
  fc
    .array(fc.nat(), { maxLength: 12 })
    .map((cuts) =>
      framed('chunked body', ['transfer-encoding: chunked'], chunked(utf8(GOOD_BODY), cuts), goodMessage),
    ),
);

const arbNearLimit: fc.Arbitrary<{ what: string; bytes: Buffer; expected: Expected }> = fc
  .tuple(
    arbRequest,
    fc.integer({ min: BODY_LIMIT - 16, max: BODY_LIMIT + 16 }),
    fc.constantFrom('a', 'é', '😀'),
    fc.boolean(),
    fc.array(fc.nat(), { maxLength: 8 }),
  )
  .map(([req, size, char, useChunks, cuts]) => {
    const body = padded(req, 'extra', size, char);
    const expected: Expected =
      body.length > BODY_LIMIT
        ? error(
            413,
            'request_too_large',
            `Request exceeds the maximum allowed number of bytes (${BODY_LIMIT}).`,
          )
        : { outcome: 'message', stream: req.stream === true, model: req.model as string };
    const what = `${body.length} bytes near the limit, ${useChunks ? 'chunked' : 'content-length'}`;
    return useChunks
      ? framed(
          what,
          ['transfer-encoding: chunked'],
          chunked(
            body,
            cuts.map((c) => c * 977),
          ),
          expected,
        )
      : framed(what, [`content-length: ${body.length}`], Buffer.from(body), expected);
  });

const arbSocketCase: fc.Arbitrary<SocketCase> = fc
  .oneof(
    {
      weight: 3,
      arbitrary: arbGarbledLine.map(({ what, line }) => ({
        what: [what],
        bytes: wire(line, [KEY_LINE]),
        expected: malformed(),
      })),
    },
    {
      weight: 3,
      arbitrary: arbOddHeader.map(({ what, lines, expected }) => ({
        what: [what],
        bytes: wire(OK_LINE, lines),
        expected,
      })),
    },
    {
      weight: 2,
      arbitrary: arbFraming.map(({ what, bytes, expected }) => ({ what: [what], bytes, expected })),
    },
    {
      weight: 2,
      arbitrary: arbNearLimit.map(({ what, bytes, expected }) => ({ what: [what], bytes, expected })),
    },
    {
      weight: 1,
      arbitrary: fc.constant<Omit<SocketCase, 'via'>>({
        what: ['connection closed without a byte'],
        bytes: new Uint8Array(0),
        expected: { outcome: 'closed' },
      }),
    },
  )
  .map((c) => ({ via: 'socket' as const, ...c }));

// ---------------------------------------------------------------------------------------
// Printing.

function shown(bytes: Uint8Array | undefined): string {
  if (bytes === undefined) return 'none';
  const text = JSON.stringify(Buffer.from(bytes).toString('latin1'));
  return text.length > 400 ? `${text.slice(0, 400)}..." (${bytes.length} bytes)` : text;
}

function showExpected(e: Expected): string {
  if (e.outcome === 'message') return `200 message${e.stream ? ' (stream)' : ''}`;
  if (e.outcome === 'error') return `${e.status} ${e.errorType} ${String(e.message)}`;
  if (e.outcome === 'no body') return `${e.status} without a body`;
  return 'connection closed, nothing sent';
}

function printable<C extends HttpCase>(c: C): C {
  return Object.assign(c, {
    [fc.toStringMethod]: () =>
      c.via === 'inject'
        ? `{inject (${c.config}): ${c.what.join('; ')} | ${c.method} ${c.url} headers ${JSON.stringify(c.headers)} body (latin1) ${shown(c.body)} | expected ${showExpected(c.expected)}}`
        : `{socket: ${c.what.join('; ')} | bytes (latin1) ${shown(c.bytes)} | expected ${showExpected(c.expected)}}`,
  });
}

export const arbHttpCase: fc.Arbitrary<HttpCase> = fc
  .oneof({ weight: 8, arbitrary: arbInjectCase }, { weight: 1, arbitrary: arbSocketCase })
  .map((c) => printable<HttpCase>(c));

// ---------------------------------------------------------------------------------------
// The oracle.

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

function fail(message: string): never {
  throw new FuzzViolation(message);
}

function judge(expected: Expected, answer: Answer | 'closed'): void {
  if (answer === 'closed') {
    if (expected.outcome !== 'closed')
      fail(`expected ${showExpected(expected)}, but the connection closed without an answer`);
    return;
  }
  const got = `${answer.status} ${answer.headers['content-type'] ?? '(no content-type)'} ${shown(answer.body.subarray(0, 300))}`;
  if (expected.outcome === 'closed') fail(`expected the connection to close without an answer, got ${got}`);
  if (!/^req_\w{20,}$/.test(answer.headers['request-id'] ?? '')) fail(`no request-id header in ${got}`);
  if (expected.outcome === 'no body') {
    if (answer.status !== expected.status || answer.body.length > 0)
      fail(`expected ${showExpected(expected)}, got ${got}`);
    return;
  }
  if (expected.outcome === 'error') {
    judgeError(expected, answer, got);
    return;
  }
  if (answer.status !== 200) fail(`expected ${showExpected(expected)}, got ${got}`);
  const message = expected.stream ? streamedMessage(answer, got) : bufferedMessage(answer, got);
  if (message.model !== expected.model)
    fail(
      `the message names model ${JSON.stringify(message.model)}, not the requested ${JSON.stringify(expected.model)}`,
    );
}

function judgeError(expected: Expected & { outcome: 'error' }, answer: Answer, got: string): void {
  if (answer.status !== expected.status) fail(`expected ${showExpected(expected)}, got ${got}`);
  if (!(answer.headers['content-type'] ?? '').startsWith('application/json'))
    fail(`an error without a JSON content-type: ${got}`);
  let body: unknown;
  try {
    body = JSON.parse(answer.body.toString());
  } catch {
    fail(`an error body that is not JSON: ${got}`);
  }
  const parsed = ErrorBody.safeParse(body);
  if (!parsed.success) fail(`an error body not of the API's shape: ${got}`);
  const { error: e, request_id } = parsed.data;
  const messageOk =
    typeof expected.message === 'string' ? e.message === expected.message : expected.message.test(e.message);
  if (e.type !== expected.errorType || !messageOk) fail(`expected ${showExpected(expected)}, got ${got}`);
  if (request_id !== answer.headers['request-id'])
    fail(`request_id ${request_id} differs from the request-id header ${answer.headers['request-id']}`);
}

function bufferedMessage(answer: Answer, got: string): Message {
  if (!(answer.headers['content-type'] ?? '').startsWith('application/json'))
    fail(`a buffered reply without a JSON content-type: ${got}`);
  let body: unknown;
  try {
    body = JSON.parse(answer.body.toString());
  } catch {
    fail(`a buffered reply that is not JSON: ${got}`);
  }
  const parsed = Message.safeParse(body);
  if (!parsed.success)
    fail(`a buffered reply that is not a Message (${parsed.error.issues[0]?.message}): ${got}`);
  return parsed.data;
}

function streamedMessage(answer: Answer, got: string): Message {
  if (answer.headers['content-type'] !== 'text/event-stream; charset=utf-8')
    fail(`a stream with content-type ${answer.headers['content-type']}: ${got}`);
  const frames: SseFrame[] = [];
  const invalid: string[] = [];
  const decoder = createFrameDecoder({
    onFrame: (f) => frames.push(f),
    onInvalidLine: (line) => invalid.push(line),
  });
  decoder.feed(answer.body);
  const unterminated = decoder.end();
  if (invalid.length > 0 || unterminated !== '')
    fail(
      `a stream with invalid lines ${JSON.stringify(invalid)} or an unterminated frame ${JSON.stringify(unterminated)}`,
    );
  const acc = new StreamAccumulator();
  try {
    for (const f of frames) {
      const event = JSON.parse(f.data) as { type?: unknown };
      if (event.type !== f.event) fail(`frame event ${f.event} carries data of type ${String(event.type)}`);
      acc.push(event);
    }
    return acc.finish();
  } catch (e) {
    if (e instanceof FuzzViolation) throw e;
    fail(`a stream that does not reduce to a message: ${(e as Error).message}`);
  }
}

// ---------------------------------------------------------------------------------------
// Transport: inject, and a raw socket.

async function injected(
  app: FastifyInstance,
  c: Pick<InjectCase, 'method' | 'url' | 'headers' | 'body'>,
): Promise<Answer> {
  const res = await app.inject({
    method: c.method as 'POST',
    url: c.url,
    headers: c.headers,
    ...(c.body === undefined ? {} : { payload: Buffer.from(c.body) }),
  });
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers))
    if (value !== undefined) headers[name] = String(value);
  return { status: res.statusCode, headers, body: res.rawPayload };
}

/** Send `bytes`, half-close, and collect everything until the server closes (or the deadline). */
function exchange(port: number, bytes: Uint8Array): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1' });
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(
        new FuzzViolation(
          `the connection was still open after ${SOCKET_DEADLINE_MS} ms (got ${shown(Buffer.concat(chunks))})`,
        ),
      );
    }, SOCKET_DEADLINE_MS);
    socket.on('data', (d: Buffer) => chunks.push(d));
    // A server that answers early (413, 400) may reset while the rest is still being sent:
    // what it answered is what counts.
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks));
    });
    socket.end(bytes);
  });
}

/** One HTTP/1.1 response, and nothing after it (every request said connection: close). */
function parseResponse(bytes: Buffer): Answer | 'closed' {
  if (bytes.length === 0) return 'closed';
  const end = bytes.indexOf('\r\n\r\n');
  if (end === -1) fail(`an incomplete response head: ${shown(bytes)}`);
  const [statusLine = '', ...lines] = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const status = /^HTTP\/1\.1 (\d{3}) /.exec(statusLine);
  if (!status) fail(`a bad status line: ${JSON.stringify(statusLine)}`);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  let rest = bytes.subarray(end + 4);
  let body: Buffer;
  if (headers['transfer-encoding'] === 'chunked') {
    const pieces: Buffer[] = [];
    for (;;) {
      const lineEnd = rest.indexOf('\r\n');
      const size = Number.parseInt(rest.subarray(0, lineEnd).toString('latin1'), 16);
      if (lineEnd === -1 || !Number.isInteger(size)) fail(`a bad chunk in ${shown(bytes)}`);
      if (size === 0) {
        rest = rest.subarray(lineEnd + 4);
        break;
      }
      pieces.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size));
      rest = rest.subarray(lineEnd + 2 + size + 2);
    }
    body = Buffer.concat(pieces);
  } else {
    const length = Number(headers['content-length'] ?? rest.length);
    body = rest.subarray(0, length);
    rest = rest.subarray(length);
  }
  if (body.length !== Number(headers['content-length'] ?? body.length))
    fail(`a body shorter than its content-length: ${shown(bytes)}`);
  if (rest.length > 0) fail(`bytes after the response: ${shown(rest)}`);
  return { status: Number(status[1]), headers, body };
}

// ---------------------------------------------------------------------------------------
// The surface.

export interface MockMessagesHttpOptions {
  /** The service under test (default: the mock's `build`); a test passes a broken one. */
  build?: (opts: MockMessagesOptions) => FastifyInstance;
}

/** A request both configurations must always answer with 200 and a message. */
function livenessRequest(): Pick<InjectCase, 'method' | 'url' | 'headers' | 'body'> {
  return {
    method: 'POST',
    url: '/v1/messages',
    headers: {
      'x-api-key': RIGHT_KEY,
      'anthropic-version': ACCEPTED_VERSION,
      'content-type': 'application/json',
    },
    body: utf8(GOOD_BODY),
  };
}

export function mockMessagesHttpSurface(options: MockMessagesHttpOptions = {}): FuzzSurface<HttpCase> {
  const build = options.build ?? buildMock;
  return {
    name: 'mock-messages-http',
    description:
      'mock messages service over HTTP (inject and a real socket): malformed JSON, wrong shapes, odd headers, methods, paths, sizes and framing each get their documented status and error body, valid requests a message or a stream that reduces, and the service keeps answering',
    async open() {
      const common = { bodyLimit: BODY_LIMIT, journalLimit: 64 };
      const apps: Record<Config, FastifyInstance> = {
        default: build({ ...CONFIGS.default, ...common }),
        strict: build({ ...CONFIGS.strict, ...common }),
      };
      const listening = build({ ...CONFIGS.default, ...common });
      await listening.listen({ host: '127.0.0.1', port: 0 });
      const { port } = listening.server.address() as AddressInfo;
      const alive = async (what: string, answer: () => Promise<Answer | 'closed'>) => {
        try {
          judge(goodMessage, await answer());
        } catch (e) {
          fail(`after this case the ${what} no longer answers a valid request: ${(e as Error).message}`);
        }
      };
      return {
        arbitrary: arbHttpCase,
        async check(c) {
          if (c.via === 'inject') {
            const app = apps[c.config];
            judge(c.expected, await injected(app, c));
            await alive(`${c.config} service`, () => injected(app, livenessRequest()));
          } else {
            judge(c.expected, parseResponse(await exchange(port, c.bytes)));
            await alive('listening service', async () =>
              parseResponse(await exchange(port, wire(OK_LINE, [KEY_LINE]))),
            );
          }
        },
        async close() {
          await Promise.all([apps.default.close(), apps.strict.close(), listening.close()]);
        },
      };
    },
  };
}

export const mockMessagesHttp = mockMessagesHttpSurface();
