import fc from 'fast-check';
import type { ContentBlock, MessageRequest, ToolDefinition, Turn } from '../../protocol/messages/index.js';
import { BASH_TOOL } from './requests.js';

/** A request the service must accept. */
export interface ValidCase {
  readonly body: MessageRequest;
}

/** A request body the service must reject, as sent (it may not be JSON), and what is wrong with it. */
export interface InvalidCase {
  /** The rule it breaks, stable across generated values (`max_tokens not an integer`). */
  readonly label: string;
  /** The rule and the value that breaks it, for messages. */
  readonly detail: string;
  readonly raw: string;
}

/** Not shown in the spec; the real API's custom tool shape. */
const CUSTOM_TOOL: ToolDefinition = {
  name: 'get_weather',
  description: 'Returns the weather of a city',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

/**
 * Unicode text the real API accepts in a text block: not blank (it rejects empty and
 * whitespace-only text), so each string holds a letter or digit.
 */
const text = fc
  .string({ unit: 'grapheme', minLength: 1, maxLength: 24 })
  .map((s) => (/[\p{L}\p{N}]/u.test(s) ? s : `w${s}`));

const textBlock = text.map((t): ContentBlock => ({ type: 'text', text: t }));
const content = fc.oneof(text, fc.array(textBlock, { minLength: 1, maxLength: 2 }));

const toolRound = fc.record({
  lead: fc.option(text, { nil: undefined }),
  calls: fc.array(
    fc.record({
      command: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 20 }),
      output: text,
      isError: fc.boolean(),
    }),
    { minLength: 1, maxLength: 2 },
  ),
  trail: fc.option(text, { nil: undefined }),
});

type ToolRound = typeof toolRound extends fc.Arbitrary<infer T> ? T : never;

/** Turns of one tool round: the request, the assistant's tool_use blocks, the user's tool_result blocks first. */
function toolRoundTurns(prompt: string, round: ToolRound): Turn[] {
  const ids = round.calls.map((_, i) => `toolu_wc_${i + 1}`);
  const uses: ContentBlock[] = round.calls.map((c, i) => ({
    type: 'tool_use',
    id: ids[i]!,
    name: 'bash',
    input: { command: c.command },
  }));
  // The real API wants tool_result blocks first in their user turn, any text after them.
  const results: ContentBlock[] = round.calls.map((c, i) => ({
    type: 'tool_result',
    tool_use_id: ids[i]!,
    content: c.output,
    is_error: c.isError,
  }));
  return [
    { role: 'user', content: prompt },
    {
      role: 'assistant',
      content: round.lead === undefined ? uses : [{ type: 'text', text: round.lead }, ...uses],
    },
    {
      role: 'user',
      content: round.trail === undefined ? results : [...results, { type: 'text', text: round.trail }],
    },
  ];
}

/**
 * Valid requests: alternating turns with unicode text (string or block content), maybe a
 * bash tool round with one or two tool_result blocks, maybe tools, buffered or streamed.
 */
export function validRequestBody(model: string): fc.Arbitrary<ValidCase> {
  return fc
    .record({
      pairs: fc.array(fc.record({ user: content, assistant: content }), { maxLength: 2 }),
      last: content,
      round: fc.option(toolRound, { nil: undefined }),
      tools: fc.constantFrom<'none' | 'bash' | 'bash+custom'>('none', 'bash', 'bash+custom'),
      maxTokens: fc.integer({ min: 8, max: 64 }),
      stream: fc.boolean(),
    })
    .map(({ pairs, last, round, tools, maxTokens, stream }) => {
      const messages: Turn[] = pairs.flatMap((p): Turn[] => [
        { role: 'user', content: p.user },
        { role: 'assistant', content: p.assistant },
      ]);
      if (round === undefined) messages.push({ role: 'user', content: last });
      else messages.push(...toolRoundTurns(typeof last === 'string' ? last : 'Run a command.', round));
      // A conversation holding tool blocks must offer the tool again (Endpoints: follow-up turn).
      const offered = round !== undefined && tools === 'none' ? 'bash' : tools;
      const body: MessageRequest = {
        model,
        max_tokens: maxTokens,
        messages,
        ...(offered === 'none' ? {} : { tools: offered === 'bash' ? [BASH_TOOL] : [BASH_TOOL, CUSTOM_TOOL] }),
        ...(stream ? { stream: true } : {}),
      };
      return { body };
    });
}

function show(value: unknown): string {
  return JSON.stringify(value) ?? String(value);
}

function isJson(raw: string): boolean {
  try {
    JSON.parse(raw);
    return true;
  } catch {
    return false;
  }
}

type Body = Record<string, unknown>;

/** One rule of an invalid-request set: a stable label, and how to break a valid body that way. */
interface InvalidRule {
  readonly label: string;
  /** Values to break the body with; the first is the rule's example. */
  readonly values: readonly unknown[];
  /** The raw body (it may not be JSON) for a valid base body and one of `values`. */
  make(base: Body, value: unknown): string;
}

const json = (body: unknown) => JSON.stringify(body);
const without = (body: Body, key: string) =>
  Object.fromEntries(Object.entries(body).filter(([k]) => k !== key));

/**
 * Requests the spec's field table makes invalid (Resources: Message request body, Turn,
 * Content blocks, the shell tool definition): a required field missing or of the wrong
 * type, a role or block outside the table, a body that is not a JSON object. Every
 * service refuses these. Values a lax validator might coerce (numeric strings, booleans
 * for integers) are left out.
 */
export const MALFORMED_RULES: readonly InvalidRule[] = [
  { label: 'model missing', values: [null], make: (b) => json(without(b, 'model')) },
  { label: 'max_tokens missing', values: [null], make: (b) => json(without(b, 'max_tokens')) },
  { label: 'messages missing', values: [null], make: (b) => json(without(b, 'messages')) },
  { label: 'model not a string', values: [42, null, true, [], {}], make: (b, v) => json({ ...b, model: v }) },
  {
    label: 'max_tokens not an integer',
    values: ['ten', 1.5, null, [], {}],
    make: (b, v) => json({ ...b, max_tokens: v }),
  },
  {
    label: 'messages not an array',
    values: ['hello', {}, 42, null],
    make: (b, v) => json({ ...b, messages: v }),
  },
  {
    label: 'role not user or assistant',
    values: ['system', 'tool', 'model', 'bot', '', 'USER', 42, null],
    make: (b, v) => json({ ...b, messages: [{ role: v, content: 'hello' }] }),
  },
  {
    label: 'content not a string or an array of blocks',
    values: [42, null, true, {}],
    make: (b, v) => json({ ...b, messages: [{ role: 'user', content: v }] }),
  },
  {
    label: 'content block malformed',
    values: [[{ type: 'text' }], [{ type: 'text', text: 42 }], [{ text: 'hello' }]],
    make: (b, v) => json({ ...b, messages: [{ role: 'user', content: v }] }),
  },
  {
    label: 'stream not a boolean',
    values: ['wirecheck', 42, {}, []],
    make: (b, v) => json({ ...b, stream: v }),
  },
  { label: 'tools not an array', values: ['bash', 42, {}], make: (b, v) => json({ ...b, tools: v }) },
  {
    label: 'tool definition malformed',
    values: [[{ type: 'bash_20250124' }], [42]],
    make: (b, v) => json({ ...b, tools: v }),
  },
  {
    label: 'body not JSON',
    values: ['not json', '{"model":', "{'model': 'x'}", '{"model": "m",}'],
    make: (_b, v) => String(v),
  },
  {
    label: 'body not a JSON object',
    values: [[], 42, 'a string', null, true],
    make: (_b, v) => json(v),
  },
];

const ASSISTANT_TOOL_USE = {
  role: 'assistant',
  content: [{ type: 'tool_use', id: 'toolu_wc_1', name: 'bash', input: { command: 'echo hi' } }],
};

/**
 * Requests whose every field has the right type but that the real API refuses as
 * meaningless: blocks in the wrong direction (Content blocks: tool_use assistant only,
 * tool_result user only), a tool_result answering no tool_use, no turn at all, and a
 * max_tokens below 1. The spec states no rejection for these (statuses are "not shown").
 */
export const SEMANTIC_RULES: readonly InvalidRule[] = [
  {
    label: 'tool_result in an assistant turn',
    values: [null],
    make: (b) =>
      json({
        ...b,
        tools: [BASH_TOOL],
        messages: [
          { role: 'user', content: 'hello' },
          {
            role: 'assistant',
            content: [{ type: 'tool_result', tool_use_id: 'toolu_wc_1', content: 'out', is_error: false }],
          },
          { role: 'user', content: 'go on' },
        ],
      }),
  },
  {
    label: 'tool_use in a user turn',
    values: [null],
    make: (b) =>
      json({
        ...b,
        tools: [BASH_TOOL],
        messages: [{ role: 'user', content: ASSISTANT_TOOL_USE.content }],
      }),
  },
  {
    label: 'tool_result answering no tool_use',
    values: ['toolu_wc_nowhere', 'toolu_wc_2'],
    make: (b, v) =>
      json({
        ...b,
        tools: [BASH_TOOL],
        messages: [
          { role: 'user', content: 'Run a command.' },
          ASSISTANT_TOOL_USE,
          {
            role: 'user',
            content: [{ type: 'tool_result', tool_use_id: v, content: 'hi', is_error: false }],
          },
        ],
      }),
  },
  { label: 'messages empty', values: [[]], make: (b, v) => json({ ...b, messages: v }) },
  { label: 'max_tokens below 1', values: [0, -1], make: (b, v) => json({ ...b, max_tokens: v }) },
];

/** The valid body every invalid case breaks, with a generated prompt. */
function baseBody(model: string, prompt: string, stream: boolean): Body {
  return {
    model,
    max_tokens: 16,
    messages: [{ role: 'user', content: prompt }],
    ...(stream ? { stream: true } : {}),
  };
}

function caseOf(rule: InvalidRule, base: Body, value: unknown): InvalidCase {
  const raw = rule.make(base, value);
  if (rule.values.length === 1) return { label: rule.label, detail: rule.label, raw };
  const shown = rule.label.startsWith('body not') ? show(raw) : show(value);
  return { label: rule.label, detail: `${rule.label} (${shown})`, raw };
}

/** One case per rule, each with the rule's first value: every label is tried at least once. */
export function invalidExamples(model: string, rules: readonly InvalidRule[]): InvalidCase[] {
  return rules.map((rule) => caseOf(rule, baseBody(model, 'hello', false), rule.values[0]));
}

/**
 * Generated invalid requests of one set: a rule, one of its values, and a valid base body
 * (unicode prompt, buffered or streamed). `label` is the rule's (stable, for labelled
 * properties); `detail` names the value too. Bodies that are not JSON get generated text.
 */
export function invalidRequestBody(model: string, rules: readonly InvalidRule[]): fc.Arbitrary<InvalidCase> {
  const base = fc
    .record({ prompt: text, stream: fc.boolean() })
    .map(({ prompt, stream }) => baseBody(model, prompt, stream));
  return fc.oneof(
    ...rules.map((rule) => {
      const values =
        rule.label === 'body not JSON'
          ? fc.oneof(
              fc.constantFrom(...rule.values),
              fc.string({ maxLength: 40 }).filter((v) => v.trim() !== '' && !isJson(v)),
            )
          : fc.constantFrom(...rule.values);
      return fc.tuple(base, values).map(([b, v]) => caseOf(rule, b, v));
    }),
  );
}
