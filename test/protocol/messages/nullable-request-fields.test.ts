import { describe, expect, test } from 'vitest';
import { validateRequest } from '../../../src/mocks/messages/index.js';
import { CustomToolDefinition, MessageRequest } from '../../../src/protocol/messages/index.js';

/*
 * The request fields the API's published schema makes nullable (the official SDK's types are
 * generated from it: node_modules/@anthropic-ai/sdk/resources/messages/messages.d.ts) take
 * null; the ones it does not keep refusing it, so null is not accepted everywhere.
 */

const base = { model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] };
const tool = { name: 'get_weather', input_schema: { type: 'object' } };
const withTool = (extra: Record<string, unknown>, schema: Record<string, unknown> = {}) => ({
  ...base,
  tools: [{ ...tool, ...extra, input_schema: { ...tool.input_schema, ...schema } }],
});

describe('nullable in the API schema: null is accepted', () => {
  const cases: [string, unknown][] = [
    ['tools[].type (Tool.type?: "custom" | null)', withTool({ type: null })],
    [
      'tools[].input_schema.properties (InputSchema.properties?: unknown | null)',
      withTool({}, { properties: null }),
    ],
    [
      'tools[].input_schema.required (InputSchema.required?: Array<string> | null)',
      withTool({}, { required: null }),
    ],
    ['metadata.user_id (Metadata.user_id?: string | null)', { ...base, metadata: { user_id: null } }],
    // Not modelled by the schema (a loose object keeps them), listed so a later model of them keeps null.
    ['tools[].cache_control (CacheControlEphemeral | null)', withTool({ cache_control: null })],
    ['tools[].eager_input_streaming (boolean | null)', withTool({ eager_input_streaming: null })],
    ['cache_control (CacheControlEphemeral | null)', { ...base, cache_control: null }],
    [
      'messages[].content[].cache_control and citations (TextBlockParam)',
      {
        ...base,
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'hi', cache_control: null, citations: null }] },
        ],
      },
    ],
  ];
  for (const [field, body] of cases) {
    test(field, () => {
      const parsed = MessageRequest.safeParse(body);
      expect(parsed.error?.issues ?? []).toEqual([]);
      expect(validateRequest(body)).toMatchObject({ ok: true });
    });
  }

  test('a custom tool with every nullable field null parses as the custom shape', () => {
    const parsed = CustomToolDefinition.safeParse({
      type: null,
      name: 'get_weather',
      input_schema: { type: 'object', properties: null, required: null },
    });
    expect(parsed.success).toBe(true);
  });

  test('a tool of type null is judged as the custom tool it is: the refusal names its bad field, not its type', () => {
    const body = { ...base, tools: [{ type: null, name: 'bad name', input_schema: { type: 'object' } }] };
    expect(validateRequest(body)).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^tools\.0\.name: /),
    });
  });
});

describe('not nullable in the API schema: null is refused', () => {
  const cases: [string, unknown, RegExp][] = [
    [
      'tools[].description (description?: string)',
      withTool({ description: null }),
      /^tools\.0\.description: /,
    ],
    ['tools[].input_schema.type', withTool({}, { type: null }), /^tools\.0\.input_schema\.type: /],
    ['stream (stream?: boolean)', { ...base, stream: null }, /^stream: /],
    ['system (string | TextBlockParam[])', { ...base, system: null }, /^system: /],
    ['stop_sequences (string[])', { ...base, stop_sequences: null }, /^stop_sequences: /],
    ['metadata (metadata?: Metadata)', { ...base, metadata: null }, /^metadata: /],
    ['tool_choice (tool_choice?: ToolChoice)', { ...base, tool_choice: null }, /^tool_choice: /],
    ['tools (tools?: ToolUnion[])', { ...base, tools: null }, /^tools: /],
  ];
  for (const [field, body, message] of cases) {
    test(field, () => {
      expect(validateRequest(body)).toMatchObject({ ok: false, message: expect.stringMatching(message) });
    });
  }
});
