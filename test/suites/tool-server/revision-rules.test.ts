import { describe, expect, test } from 'vitest';
import {
  answeredIds,
  callResultProblems,
  initializeProblems,
  structuredContentProblems,
  toolNameProblems,
  toolsListProblems,
} from '../../../src/suites/tool-server/rules.js';

const WEATHER = {
  type: 'object',
  properties: {
    temperature: { type: 'number' },
    conditions: { type: 'string', enum: ['sunny', 'cloudy'] },
    hourly: {
      type: 'array',
      items: { type: 'object', properties: { t: { type: 'integer' } }, required: ['t'] },
    },
    unit: { const: 'C' },
  },
  required: ['temperature', 'conditions'],
};

describe('structuredContentProblems (MCP 2025-06-18 output schema)', () => {
  test('a conforming value has none; extra properties are allowed', () => {
    expect(
      structuredContentProblems(WEATHER, {
        temperature: 21.5,
        conditions: 'sunny',
        hourly: [{ t: 1 }],
        extra: true,
      }),
    ).toEqual([]);
  });

  test("properties named like Object's members are judged as the value has them (an absent toString failed)", () => {
    const schema = {
      type: 'object',
      properties: { toString: { type: 'string' }, constructor: { type: 'object' } },
      required: ['valueOf'],
    };
    expect(structuredContentProblems(schema, JSON.parse('{"valueOf": 1}'))).toEqual([]);
    expect(structuredContentProblems(schema, JSON.parse('{}'))).toEqual([
      'structuredContent.valueOf: required, absent',
    ]);
    expect(structuredContentProblems(schema, JSON.parse('{"valueOf": 1, "toString": 2}'))).toEqual([
      'structuredContent.toString: 2 is not of type "string"',
    ]);
  });

  test('enum and const compare JSON values, objects member by member in any order', () => {
    const schema = {
      type: 'object',
      properties: { at: { const: { lat: 1, lon: 2 } }, mode: { enum: [{ a: [1, { b: 2, c: 3 }] }, 'x'] } },
    };
    expect(
      structuredContentProblems(schema, { at: { lon: 2, lat: 1 }, mode: { a: [1, { c: 3, b: 2 }] } }),
    ).toEqual([]);
    expect(
      structuredContentProblems(schema, { at: { lat: 1, lon: 2, alt: 0 }, mode: { a: [{ b: 2, c: 3 }, 1] } }),
    ).toEqual([
      'structuredContent.at: {"lat":1,"lon":2,"alt":0} is not its const {"lat":1,"lon":2}',
      'structuredContent.mode: {"a":[{"b":2,"c":3},1]} is not one of its enum',
    ]);
  });

  test('every breach is named with its path', () => {
    expect(
      structuredContentProblems(WEATHER, {
        temperature: '21',
        conditions: 'rain',
        hourly: [{ t: 1.5 }, {}],
        unit: 'F',
      }),
    ).toEqual([
      'structuredContent.temperature: "21" is not of type "number"',
      'structuredContent.conditions: "rain" is not one of its enum',
      'structuredContent.hourly[0].t: 1.5 is not of type "integer"',
      'structuredContent.hourly[1].t: required, absent',
      'structuredContent.unit: "F" is not its const "C"',
    ]);
    expect(structuredContentProblems(WEATHER, { temperature: 1 })).toEqual([
      'structuredContent.conditions: required, absent',
    ]);
    expect(structuredContentProblems(WEATHER, [])).toEqual(['structuredContent: [] is not of type "object"']);
  });

  test('keywords it does not read never make a problem, and no schema judges nothing', () => {
    expect(structuredContentProblems({ type: 'object', anyOf: [{ required: ['x'] }] }, {})).toEqual([]);
    expect(structuredContentProblems({ $ref: '#/defs/x' }, 42)).toEqual([]);
    expect(structuredContentProblems(true, { a: 1 })).toEqual([]);
  });

  test('a deeply nested schema is followed only so far', () => {
    let schema: Record<string, unknown> = { type: 'string' };
    let value: unknown = 1;
    for (let i = 0; i < 100; i++) {
      schema = { type: 'object', properties: { a: schema } };
      value = { a: value };
    }
    expect(structuredContentProblems(schema, value)).toEqual([]);
  });
});

describe('toolNameProblems (MCP 2025-11-25 tool names)', () => {
  test('names within the guidance have none', () => {
    expect(
      toolNameProblems(['getUser', 'DATA_EXPORT_v2', 'admin.tools.list', 'a-b', 'x'.repeat(128)]),
    ).toEqual([]);
  });

  test('length, characters and duplicates', () => {
    expect(toolNameProblems(['', 'x'.repeat(129), 'get weather', 'a,b', 'ü', 'dup', 'dup'])).toEqual([
      '"" has 0 characters (1 to 128)',
      `"${'x'.repeat(129)}" has 129 characters (1 to 128)`,
      '"get weather" has characters other than A-Z, a-z, 0-9, _, - and .',
      '"a,b" has characters other than A-Z, a-z, 0-9, _, - and .',
      '"ü" has characters other than A-Z, a-z, 0-9, _, - and .',
      '"dup" is listed more than once',
    ]);
  });
});

describe('answeredIds (batch responses)', () => {
  test('ids of a reply alone and of replies inside an array; requests, null ids and other values answer none', () => {
    expect(
      answeredIds([
        { jsonrpc: '2.0', id: 'a', result: {} },
        { jsonrpc: '2.0', id: 2, error: { code: -1, message: 'x' } },
        { jsonrpc: '2.0', id: 'd', method: 'ping' },
      ]),
    ).toEqual(['a', 2]);
    expect(answeredIds({ jsonrpc: '2.0', id: 'c', result: {} })).toEqual(['c']);
    expect(answeredIds({ jsonrpc: '2.0', id: 'd', method: 'ping' })).toEqual([]);
    expect(
      answeredIds({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request' } }),
    ).toEqual([]);
    expect(answeredIds({ id: 'e', result: {} })).toEqual([]);
    expect(answeredIds(undefined)).toEqual([]);
  });
});

describe('what later revisions added is never a problem under the shape checks of any revision', () => {
  test('2025-06-18 and 2025-11-25 fields of tools, results and serverInfo', () => {
    expect(
      toolsListProblems({
        tools: [
          {
            name: 'get_weather',
            title: 'Weather',
            description: 'd',
            inputSchema: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object' },
            outputSchema: { type: 'object', properties: { t: { type: 'number' } } },
            annotations: { readOnlyHint: true, openWorldHint: false },
            icons: [{ src: 'https://example.com/i.png', mimeType: 'image/png', sizes: ['48x48'] }],
            execution: { taskSupport: 'optional' },
            _meta: { 'example.com/x': 1 },
          },
        ],
      }),
    ).toEqual([]);
    expect(
      callResultProblems({
        content: [
          { type: 'text', text: '{"t":1}' },
          { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
          { type: 'resource_link', uri: 'file:///a', name: 'a' },
        ],
        structuredContent: { t: 1 },
      }),
    ).toEqual([]);
    expect(
      initializeProblems({
        protocolVersion: '2025-11-25',
        capabilities: { tools: { listChanged: true }, tasks: { list: {} } },
        serverInfo: {
          name: 's',
          title: 'S',
          version: '1',
          description: 'd',
          websiteUrl: 'https://example.com',
        },
        instructions: 'i',
      }),
    ).toEqual([]);
  });
});
