import fc from 'fast-check';
import type { ContentBlock, MessageRequest, ToolDefinition, Turn } from '../../protocol/messages/index.js';
import { BASH_TOOL } from './requests.js';

/** A request the service must accept. */
export interface ValidCase {
  readonly body: MessageRequest;
}

/** A request body the service must reject, as sent (it may not be JSON), and what is wrong with it. */
export interface InvalidCase {
  readonly label: string;
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

/**
 * Invalid requests, each wrong in one way the real API rejects with 400: a required field
 * missing or of the wrong type, a bad role or content, a malformed block, a tool_result in
 * an assistant turn, bad `stream` or `tools`, a body that is not a JSON object. Values a
 * lax validator might coerce (numeric strings, booleans for integers) are left out.
 */
export function invalidRequestBody(model: string): fc.Arbitrary<InvalidCase> {
  const base = fc.record({ prompt: text, stream: fc.boolean() }).map(
    ({ prompt, stream }): Body => ({
      model,
      max_tokens: 16,
      messages: [{ role: 'user', content: prompt }],
      ...(stream ? { stream: true } : {}),
    }),
  );
  const json = (label: string, body: unknown): InvalidCase => ({ label, raw: JSON.stringify(body) });
  const withValue = (values: unknown[], make: (b: Body, v: unknown) => InvalidCase) =>
    fc.tuple(base, fc.constantFrom(...values)).map(([b, v]) => make(b, v));
  return fc.oneof(
    fc
      .tuple(base, fc.constantFrom('model', 'max_tokens', 'messages'))
      .map(([b, key]) =>
        json(`missing ${key}`, Object.fromEntries(Object.entries(b).filter(([k]) => k !== key))),
      ),
    withValue([42, null, true, [], {}], (b, v) => json(`model is ${show(v)}`, { ...b, model: v })),
    withValue(['ten', 1.5, 0, -1, null, [], {}], (b, v) =>
      json(`max_tokens is ${show(v)}`, { ...b, max_tokens: v }),
    ),
    withValue(['hello', {}, 42, null, []], (b, v) => json(`messages is ${show(v)}`, { ...b, messages: v })),
    withValue(['system', 'tool', 'model', 'bot', '', 'USER', 42, null], (b, v) =>
      json(`a turn with role ${show(v)}`, { ...b, messages: [{ role: v, content: 'hello' }] }),
    ),
    withValue([42, null, true, {}], (b, v) =>
      json(`a turn with content ${show(v)}`, { ...b, messages: [{ role: 'user', content: v }] }),
    ),
    withValue([[{ type: 'text' }], [{ type: 'text', text: 42 }], [{ text: 'hello' }]], (b, v) =>
      json(`a malformed content block ${show(v)}`, { ...b, messages: [{ role: 'user', content: v }] }),
    ),
    base.map((b) =>
      json('a tool_result block in an assistant turn', {
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
    ),
    withValue(['wirecheck', 42, {}, []], (b, v) => json(`stream is ${show(v)}`, { ...b, stream: v })),
    withValue(['bash', 42, {}, [{ type: 'bash_20250124' }], [42]], (b, v) =>
      json(`tools is ${show(v)}`, { ...b, tools: v }),
    ),
    fc
      .oneof(
        fc.constantFrom('not json', '{"model":', "{'model': 'x'}", '{"model": "m",}'),
        fc.string({ maxLength: 40 }).filter((s) => s.trim() !== '' && !isJson(s)),
      )
      .map((raw) => ({ label: `a body that is not JSON: ${show(raw)}`, raw })),
    fc
      .constantFrom<unknown>([], 42, 'a string', null, true)
      .map((v) => json(`a body that is JSON ${show(v)}`, v)),
  );
}
