import { describe, expect, test } from 'vitest';
import { errorResponse, successResponse } from '../../../src/protocol/jsonrpc/index.js';
import type { Tool } from '../../../src/protocol/mcp/index.js';
import {
  answerKind,
  callResultProblems,
  defaultProblems,
  initializeProblems,
  isKeepAlive,
  keepAliveGap,
  keepAliveSettledAt,
  propertyCounts,
  propertyProblems,
  toolsListProblems,
  unknownToolAnswer,
  versionProblem,
} from '../../../src/suites/tool-server/rules.js';

const tool = (properties: Record<string, unknown>): Tool => ({
  name: 't',
  inputSchema: { type: 'object', properties: properties as Tool['inputSchema']['properties'] },
});

describe('initialize result (Tool-server objects)', () => {
  const ok = {
    protocolVersion: '2024-11-05',
    capabilities: { tools: {} },
    serverInfo: { name: 's', version: '1' },
  };
  test('a result with protocolVersion, a tools capability and serverInfo strings has no problems', () => {
    expect(initializeProblems(ok)).toEqual([]);
  });
  test('a server offering tools without a tools capability object is a problem', () => {
    expect(initializeProblems({ ...ok, capabilities: {} })).toHaveLength(1);
    expect(initializeProblems({ ...ok, capabilities: { tools: true } }).length).toBeGreaterThan(0);
  });
  test('a numeric serverInfo.version is a problem', () => {
    expect(initializeProblems({ ...ok, serverInfo: { name: 's', version: 1 } }).join()).toContain(
      'serverInfo.version',
    );
  });
  test('another protocol version than the one asked for is named', () => {
    expect(versionProblem(ok)).toBeUndefined();
    expect(versionProblem({ ...ok, protocolVersion: '2025-06-18' })).toContain('2025-06-18');
  });
});

describe('tools/list (Tool: inputSchema type object, properties with type and description, default)', () => {
  test('an inputSchema without type object is a problem naming the tool', () => {
    expect(toolsListProblems({ tools: [{ name: 'x', inputSchema: { properties: {} } }] }).join()).toContain(
      '(x)',
    );
    expect(toolsListProblems({ tools: 'no' })).toEqual(['tools: expected an array']);
  });
  test('a property without type or description is named', () => {
    expect(
      propertyProblems([
        tool({ a: { type: 'string' }, b: { description: 'b' }, c: { type: 'number', description: 'c' } }),
      ]),
    ).toEqual(['t.a has no `description`', 't.b has no `type`']);
  });
  test('the properties and defaults there are to judge are counted, across tools', () => {
    expect(propertyCounts([tool({}), tool({ a: { type: 'string', default: 'x' }, b: {} })])).toEqual({
      properties: 2,
      defaults: 1,
    });
    expect(propertyCounts([tool({})])).toEqual({ properties: 0, defaults: 0 });
  });
  test('a default of another type or outside the enum is a problem; integer and union types are honoured', () => {
    expect(defaultProblems([tool({ a: { type: 'boolean', default: 'no' } })])).toHaveLength(1);
    expect(defaultProblems([tool({ a: { type: 'integer', default: 1.5 } })])).toHaveLength(1);
    expect(defaultProblems([tool({ a: { type: 'string', enum: ['x'], default: 'y' } })])).toHaveLength(1);
    expect(
      defaultProblems([
        tool({ a: { type: ['string', 'null'], default: null }, b: { type: 'number', default: 2 } }),
      ]),
    ).toEqual([]);
  });
});

describe('tools/call result (content array of {type, text})', () => {
  test('text items need a string text; other item types pass', () => {
    expect(
      callResultProblems({
        content: [
          { type: 'text', text: 'x' },
          { type: 'image', data: '', mimeType: 'image/png' },
        ],
      }),
    ).toEqual([]);
    expect(callResultProblems({ content: [{ type: 'text', text: 42 }] })).toHaveLength(1);
    expect(callResultProblems({ content: 'x' }).length).toBeGreaterThan(0);
  });
});

describe('unknown tool (Errors: the message names the unknown tool)', () => {
  test('a JSON-RPC error naming the tool, an isError result, and a plain success are told apart', () => {
    expect(unknownToolAnswer(errorResponse(1, -32602, 'Unknown tool: zz'), 'zz')).toMatchObject({
      kind: 'error',
      names: true,
    });
    expect(unknownToolAnswer(errorResponse(1, -32602, 'no such tool'), 'zz')).toMatchObject({
      kind: 'error',
      names: false,
    });
    const isError = successResponse(1, {
      content: [{ type: 'text', text: 'MCP error -32602: Tool zz not found' }],
      isError: true,
    });
    expect(unknownToolAnswer(isError, 'zz')).toMatchObject({ kind: 'is-error', names: true });
    expect(unknownToolAnswer(successResponse(1, { content: [] }), 'zz').kind).toBe('success');
  });
  test('answer kinds compare absent and empty arguments', () => {
    expect(answerKind(errorResponse(1, -32602, 'x'))).toBe('JSON-RPC error -32602');
    expect(answerKind(successResponse(1, { content: [], isError: true }))).toBe(
      'a result with isError: true',
    );
    expect(answerKind(successResponse(1, { content: [] }))).toBe('a result');
  });
});

describe('keep-alive every 15 seconds (Tool-server SSE events), judged with an injected shorter interval', () => {
  const limit = { intervalMs: 1000, toleranceMs: 200 };
  test('comment frames and ping requests count as keep-alive; other messages do not', () => {
    expect(isKeepAlive({ comment: true, data: 'keep-alive' })).toBe(true);
    expect(isKeepAlive({ event: 'message', data: '{"jsonrpc":"2.0","id":1,"method":"ping"}' })).toBe(true);
    expect(
      isKeepAlive({ event: 'message', data: '{"jsonrpc":"2.0","method":"notifications/message"}' }),
    ).toBe(false);
    expect(isKeepAlive({ event: 'endpoint', data: '/messages?sessionId=1' })).toBe(false);
  });
  test('a stream beating every interval passes', () => {
    const frames = [1000, 2000, 3000].map((atMs) => ({ atMs, comment: true, data: '' }));
    expect(keepAliveGap(frames, { fromMs: 0, toMs: 3100 }, limit)).toBeUndefined();
  });
  test('a silent stream, or one that stops beating, is reported with its longest gap', () => {
    expect(keepAliveGap([], { fromMs: 100, toMs: 1400 }, limit)).toEqual({ gapMs: 1300, afterMs: 100 });
    const frames = [
      { atMs: 900, comment: true, data: '' },
      { atMs: 1000, event: 'message', data: '{}' },
    ];
    expect(keepAliveGap(frames, { fromMs: 0, toMs: 2500 }, limit)).toEqual({ gapMs: 1600, afterMs: 900 });
  });
  test('the watch is settled by the second keep-alive (a whole interval seen), or by the first that ends a gap over the limit', () => {
    // window 0..3000, limit 1200.
    const window = { fromMs: 0, toMs: 3000 };
    const beat = (atMs: number) => ({ atMs, comment: true, data: '' });
    expect(keepAliveSettledAt([beat(50), beat(1000)], window, limit)).toBe(1000);
    expect(keepAliveSettledAt([beat(1000), beat(2000), beat(2500)], window, limit)).toBe(2000);
    // One beat, however placed, is no interval.
    expect(keepAliveSettledAt([beat(150)], window, limit)).toBeUndefined();
    expect(keepAliveSettledAt([beat(1199)], window, limit)).toBeUndefined();
    // A beat ending a gap over the limit settles a failure, whatever follows.
    expect(keepAliveSettledAt([beat(1250), beat(1300)], window, limit)).toBe(1250);
    expect(keepAliveSettledAt([beat(100), beat(1400)], window, limit)).toBe(1400);
    // Not keep-alives, or out of the window: nothing.
    expect(
      keepAliveSettledAt([{ atMs: 500, event: 'message', data: '{}' }, beat(900)], window, limit),
    ).toBeUndefined();
    expect(keepAliveSettledAt([beat(500), beat(3100)], window, limit)).toBeUndefined();
    expect(keepAliveSettledAt([], window, limit)).toBeUndefined();
  });
  test('judged up to the settling beat: a pass when it closed an interval within the limit, a failure when it ended a gap over it', () => {
    const window = { fromMs: 0, toMs: 3000 };
    const judged = (beats: number[]) => {
      const frames = beats.map((atMs) => ({ atMs, comment: true, data: '' }));
      const at = keepAliveSettledAt(frames, window, limit);
      return at === undefined ? 'open' : keepAliveGap(frames, { fromMs: 0, toMs: at }, limit);
    };
    expect(judged([1000, 2000])).toBeUndefined();
    expect(judged([1200, 2400])).toBeUndefined();
    expect(judged([1250])).toEqual({ gapMs: 1250, afterMs: 0 });
    expect(judged([100, 1400])).toEqual({ gapMs: 1300, afterMs: 100 });
    expect(judged([100])).toBe('open');
  });
});
