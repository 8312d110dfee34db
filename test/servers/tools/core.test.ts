import { describe, expect, test } from 'vitest';
import { InitializeResult, ToolsListResult, textResult } from '../../../src/protocol/mcp/index.js';
import {
  createToolServerCore,
  defineTool,
  type HandleOutcome,
  type McpToolDefinition,
  REFERENCE_TOOLS,
  type ToolServerSession,
} from '../../../src/servers/tools/index.js';

function setup(tools: readonly McpToolDefinition[] = REFERENCE_TOOLS) {
  const logs: string[] = [];
  const core = createToolServerCore({ tools, log: (line) => logs.push(line) });
  const session = core.openSession({ transport: 'memory' });
  return { core, session, logs };
}

async function answer(session: ToolServerSession, value: unknown): Promise<unknown> {
  const out: HandleOutcome = session.handle(value);
  return out instanceof Promise ? await out : out;
}

const req = (id: number | string, method: string, params?: Record<string, unknown>) =>
  params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };

const INIT = req(1, 'initialize', {
  protocolVersion: '2024-11-05',
  capabilities: {},
  clientInfo: { name: 't', version: '1' },
});

describe('initialize (spec "Tool-server objects", MCP 2024-11-05 lifecycle)', () => {
  test('answers protocol version 2024-11-05, a tools capability and serverInfo', async () => {
    const { session } = setup();
    const reply = (await answer(session, INIT)) as { id: number; result: unknown };
    expect(reply.id).toBe(1);
    const result = InitializeResult.parse(reply.result);
    expect(result.protocolVersion).toBe('2024-11-05');
    expect(result.capabilities.tools).toEqual({});
    expect(result.serverInfo.name).toBe('wirecheck-reference-tools');
    expect(typeof result.serverInfo.version).toBe('string');
    expect(session.initialized).toBe(true);
  });

  test('MCP version negotiation: a revision it speaks is answered as asked, another version with its latest', async () => {
    const versionFor = async (asked: string) => {
      const { session } = setup();
      const init = req(1, 'initialize', {
        protocolVersion: asked,
        capabilities: {},
        clientInfo: { name: 'x', version: '1' },
      });
      return ((await answer(session, init)) as { result: { protocolVersion: string } }).result
        .protocolVersion;
    };
    for (const revision of ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'])
      expect(await versionFor(revision)).toBe(revision);
    expect(await versionFor('2099-01-01')).toBe('2025-11-25');
    expect(await versionFor('1999-01-01')).toBe('2025-11-25');
  });

  test('invalid arguments are -32602 up to 2025-06-18 and an isError result in a 2025-11-25 session (SEP-1303)', async () => {
    const callIn = async (revision: string) => {
      const { session } = setup();
      await answer(
        session,
        req(1, 'initialize', {
          protocolVersion: revision,
          capabilities: {},
          clientInfo: { name: 'x', version: '1' },
        }),
      );
      return answer(session, req(2, 'tools/call', { name: 'echo', arguments: {} }));
    };
    expect(await callIn('2025-06-18')).toMatchObject({ error: { code: -32602 } });
    expect(await callIn('2025-11-25')).toEqual({
      jsonrpc: '2.0',
      id: 2,
      result: textResult('Invalid arguments for tool echo: missing required argument "text"', true),
    });
  });

  test('initialize without clientInfo is -32602 naming the missing field', async () => {
    const { session } = setup();
    const reply = (await answer(
      session,
      req(3, 'initialize', { protocolVersion: '2024-11-05', capabilities: {} }),
    )) as {
      id: number;
      error: { code: number; message: string };
    };
    expect(reply.id).toBe(3);
    expect(reply.error.code).toBe(-32602);
    expect(reply.error.message).toContain('clientInfo');
  });

  test('notifications/initialized gets no reply', async () => {
    const { session } = setup();
    expect(await answer(session, { jsonrpc: '2.0', method: 'notifications/initialized' })).toBeUndefined();
  });

  test('a request before initialize is answered (lenient) and logged once', async () => {
    const { session, logs } = setup();
    const first = (await answer(session, req(1, 'tools/list'))) as { result: unknown };
    await answer(session, req(2, 'tools/list'));
    expect(ToolsListResult.safeParse(first.result).success).toBe(true);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toContain('before initialize');
  });

  test('ping is answered with an empty result, before or after initialize, without a log', async () => {
    const { session, logs } = setup();
    expect(await answer(session, req('p', 'ping'))).toEqual({ jsonrpc: '2.0', id: 'p', result: {} });
    expect(logs).toEqual([]);
  });
});

describe('tools/list (spec "Tool-server objects": Tool)', () => {
  test('lists every reference tool with an object input schema whose properties have type and description', async () => {
    const { session } = setup();
    await answer(session, INIT);
    const reply = (await answer(session, req(2, 'tools/list'))) as { result: unknown };
    const { tools } = ToolsListResult.parse(reply.result);
    expect(tools.map((t) => t.name)).toEqual(['diagnostic', 'echo', 'slow', 'fail', 'add']);
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe('object');
      expect(typeof tool.description).toBe('string');
      for (const p of Object.values(tool.inputSchema.properties ?? {})) {
        expect(typeof p.type).toBe('string');
        expect(typeof p.description).toBe('string');
      }
    }
  });

  test('the diagnostic tool has an optional boolean argument defaulting to false (spec "Reference tool behaviours")', async () => {
    const { session } = setup();
    const reply = (await answer(session, req(2, 'tools/list'))) as { result: unknown };
    const diagnostic = ToolsListResult.parse(reply.result).tools.find((t) => t.name === 'diagnostic');
    expect(diagnostic?.inputSchema.properties?.verbose).toMatchObject({ type: 'boolean', default: false });
    expect(diagnostic?.inputSchema.required ?? []).not.toContain('verbose');
  });
});

describe('tools/call', () => {
  const call = (id: number, params?: Record<string, unknown>) => req(id, 'tools/call', params);

  test('the diagnostic tool returns one text item with status and process information', async () => {
    const { session } = setup();
    const reply = (await answer(session, call(5, { name: 'diagnostic' }))) as {
      result: { content: { type: string; text: string }[]; isError?: boolean };
    };
    expect(reply.result.content).toHaveLength(1);
    expect(reply.result.content[0]?.type).toBe('text');
    const text = reply.result.content[0]?.text ?? '';
    expect(text).toMatch(/^status: ok$/m);
    expect(text).toContain(`pid: ${process.pid}`);
    expect(text).toMatch(/^transport: memory$/m);
    expect(text).toMatch(/^open_sessions: 1$/m);
    expect(text).toMatch(/^in_flight_calls: 0$/m);
    expect(text).not.toContain('memory_heap_used_bytes');
    expect(reply.result.isError).toBeUndefined();
  });

  test('diagnostic with verbose true adds detail', async () => {
    const { session } = setup();
    const reply = (await answer(session, call(5, { name: 'diagnostic', arguments: { verbose: true } }))) as {
      result: { content: { text: string }[] };
    };
    expect(reply.result.content).toHaveLength(1);
    expect(reply.result.content[0]?.text).toContain('memory_heap_used_bytes');
    expect(reply.result.content[0]?.text).toContain(`session_id: ${session.id}`);
  });

  test('absent arguments count as empty (spec "Tool server, SSE transport")', async () => {
    const { session } = setup();
    const reply = (await answer(session, call(6, { name: 'fail' }))) as { result: unknown };
    expect(reply.result).toEqual({
      content: [{ type: 'text', text: 'this tool always fails' }],
      isError: true,
    });
  });

  test('echo returns its text unchanged; add adds', async () => {
    const { session } = setup();
    expect(await answer(session, call(7, { name: 'echo', arguments: { text: 'héllo "x"\n' } }))).toEqual({
      jsonrpc: '2.0',
      id: 7,
      result: { content: [{ type: 'text', text: 'héllo "x"\n' }] },
    });
    const sum = (await answer(session, call(8, { name: 'add', arguments: { a: 2, b: 0.5 } }))) as {
      result: { content: { text: string }[] };
    };
    expect(sum.result.content[0]?.text).toBe('2.5');
  });

  test('an unknown tool is -32602 with a message naming it (spec "Errors", MCP example)', async () => {
    const { session } = setup();
    expect(await answer(session, call(9, { name: 'nope', arguments: {} }))).toEqual({
      jsonrpc: '2.0',
      id: 9,
      error: { code: -32602, message: 'Unknown tool: nope' },
    });
  });

  test('tools/call without params, with a non-string name or non-object arguments is -32602', async () => {
    const { session } = setup();
    for (const [params, word] of [
      [undefined, 'params'],
      [{ name: 5 }, '"name"'],
      [{ name: 'echo', arguments: [1] }, '"arguments"'],
      [{ name: 'echo', arguments: 'text' }, '"arguments"'],
    ] as const) {
      const reply = (await answer(session, call(10, params as Record<string, unknown> | undefined))) as {
        error: { code: number; message: string };
      };
      expect(reply.error.code).toBe(-32602);
      expect(reply.error.message).toContain(word);
    }
  });

  test('arguments that do not fit the input schema are -32602 naming the argument', async () => {
    const { session } = setup();
    const missing = (await answer(session, call(11, { name: 'echo', arguments: {} }))) as {
      error: { code: number; message: string };
    };
    expect(missing.error).toEqual({
      code: -32602,
      message: 'Invalid arguments for tool echo: missing required argument "text"',
    });
    const wrong = (await answer(
      session,
      call(12, { name: 'diagnostic', arguments: { verbose: 'yes' } }),
    )) as {
      error: { code: number; message: string };
    };
    expect(wrong.error.code).toBe(-32602);
    expect(wrong.error.message).toContain('"verbose": expected boolean');
  });

  test('a tool handler that throws gives a result with isError true (MCP: tool errors are results)', async () => {
    const boom = defineTool({
      name: 'boom',
      description: 'throws',
      inputSchema: { type: 'object' },
      handler: () => {
        throw new Error('kaput');
      },
    });
    const rejects = defineTool({
      name: 'rejects',
      description: 'rejects',
      inputSchema: { type: 'object' },
      handler: async () => {
        throw new Error('later');
      },
    });
    const { session } = setup([boom, rejects]);
    expect(await answer(session, call(1, { name: 'boom' }))).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: { content: [{ type: 'text', text: 'tool boom failed: kaput' }], isError: true },
    });
    expect(await answer(session, call(2, { name: 'rejects' }))).toMatchObject({
      result: { isError: true, content: [{ text: 'tool rejects failed: later' }] },
    });
  });

  test('a tool returning something that is not a result is -32603', async () => {
    const bad = defineTool({
      name: 'bad',
      description: 'returns junk',
      inputSchema: { type: 'object' },
      handler: () => 42 as never,
    });
    const { session } = setup([bad]);
    const reply = (await answer(session, call(1, { name: 'bad' }))) as { error: { code: number } };
    expect(reply.error.code).toBe(-32603);
  });

  test('a second call with the id of an in-flight call is -32600', async () => {
    const { session } = setup();
    const first = session.handle(call(1, { name: 'slow', arguments: { ms: 50 } }));
    expect(first).toBeInstanceOf(Promise);
    const second = (await answer(session, call(1, { name: 'echo', arguments: { text: 'x' } }))) as {
      error: { code: number };
    };
    expect(second.error.code).toBe(-32600);
    expect(await first).toMatchObject({ id: 1, result: { content: [{ text: 'waited 50 ms' }] } });
  });

  test('any request reusing the id of an in-flight call is -32600, a ping too', async () => {
    const { session } = setup();
    const first = session.handle(call(4, { name: 'slow', arguments: { ms: 50 } }));
    const ping = (await answer(session, { jsonrpc: '2.0', id: 4, method: 'ping' })) as {
      error: { code: number };
    };
    expect(ping.error.code).toBe(-32600);
    expect(await first).toMatchObject({ id: 4, result: {} });
  });
});

describe('cancellation and de-allocation (spec "SSE tool-server session": aborts in-flight tool tasks)', () => {
  function watched() {
    const seen = { aborted: false, released: false };
    const tool = defineTool({
      name: 'wait',
      description: 'waits until aborted',
      inputSchema: { type: 'object' },
      handler: (_args, { signal }) =>
        new Promise((_resolve, reject) => {
          signal.addEventListener('abort', () => {
            seen.aborted = true;
            seen.released = true;
            reject(signal.reason);
          });
        }),
    });
    return { seen, tool };
  }

  test('notifications/cancelled aborts the named call and no reply is sent for it (MCP)', async () => {
    const { seen, tool } = watched();
    const { core, session } = setup([tool]);
    const pending = session.handle(req(7, 'tools/call', { name: 'wait' }));
    expect(core.inFlightCount()).toBe(1);
    expect(
      session.handle({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } }),
    ).toBe(undefined);
    expect(await pending).toBeUndefined();
    expect(seen.aborted).toBe(true);
    expect(core.inFlightCount()).toBe(0);
  });

  test('a cancellation for an unknown request is ignored', async () => {
    const { session } = setup();
    expect(
      session.handle({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'nope' } }),
    ).toBeUndefined();
  });

  test('closing the session aborts every in-flight call, drops their replies and forgets the session', async () => {
    const { seen, tool } = watched();
    const { core, session } = setup([tool]);
    const a = session.handle(req(1, 'tools/call', { name: 'wait' }));
    const b = session.handle(req(2, 'tools/call', { name: 'wait' }));
    expect(core.inFlightCount()).toBe(2);
    expect(core.sessionCount()).toBe(1);
    session.close();
    expect(core.inFlightCount()).toBe(0);
    expect(core.sessionCount()).toBe(0);
    expect(await a).toBeUndefined();
    expect(await b).toBeUndefined();
    expect(seen.released).toBe(true);
    expect(session.handle(req(3, 'ping'))).toBeUndefined();
  });

  test('the slow tool stops at once when cancelled (its timer is released)', async () => {
    const { core, session } = setup();
    const started = Date.now();
    const pending = session.handle(req(1, 'tools/call', { name: 'slow', arguments: { ms: 30_000 } }));
    session.handle({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } });
    expect(await pending).toBeUndefined();
    // Only waiting out the tool's 30 s is the fault: a bound near the real time fails under load.
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(core.inFlightCount()).toBe(0);
  });
});

describe('JSON-RPC 2.0 envelope errors', () => {
  test('an unknown method is -32601 naming it', async () => {
    const { session } = setup();
    expect(await answer(session, req(4, 'resources/list'))).toEqual({
      jsonrpc: '2.0',
      id: 4,
      error: { code: -32601, message: 'Method not found: resources/list' },
    });
  });

  test('an unknown notification gets no reply', async () => {
    const { session } = setup();
    expect(await answer(session, { jsonrpc: '2.0', method: 'notifications/whatever' })).toBeUndefined();
  });

  test('a wrong envelope is -32600 and echoes the id when it can be read', async () => {
    const { session } = setup();
    const wrongVersion = (await answer(session, { jsonrpc: '1.0', id: 12, method: 'ping' })) as {
      id: unknown;
      error: { code: number };
    };
    expect(wrongVersion.id).toBe(12);
    expect(wrongVersion.error.code).toBe(-32600);
    const noMethod = (await answer(session, { jsonrpc: '2.0', id: 'a' })) as {
      id: unknown;
      error: { code: number };
    };
    expect(noMethod).toMatchObject({ id: 'a', error: { code: -32600 } });
    const scalar = (await answer(session, 42)) as { id: unknown; error: { code: number } };
    expect(scalar).toMatchObject({ id: null, error: { code: -32600 } });
    const badParams = (await answer(session, { jsonrpc: '2.0', id: 3, method: 'ping', params: [1] })) as {
      id: unknown;
      error: { code: number };
    };
    expect(badParams).toMatchObject({ id: 3, error: { code: -32600 } });
  });

  test('an id too big for a double (parsed as Infinity) is no id: -32600 with id null (found by npm run fuzz)', async () => {
    const { session } = setup();
    const value = JSON.parse('{"jsonrpc":"2.0","id":1e400,"method":"ping"}');
    expect(await answer(session, value)).toMatchObject({ id: null, error: { code: -32600 } });
  });

  test("a client's responses get no reply", async () => {
    const { session } = setup();
    expect(await answer(session, { jsonrpc: '2.0', id: 1, result: {} })).toBeUndefined();
    expect(
      await answer(session, { jsonrpc: '2.0', id: 1, error: { code: 1, message: 'x' } }),
    ).toBeUndefined();
  });

  test('a batch is answered with an array of the responses, notifications leaving no entry', async () => {
    const { session } = setup();
    const reply = await answer(session, [
      req(1, 'ping'),
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      req(2, 'tools/call', { name: 'slow', arguments: { ms: 1 } }),
      5,
    ]);
    expect(reply).toEqual([
      { jsonrpc: '2.0', id: 1, result: {} },
      { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'waited 1 ms' }] } },
      expect.objectContaining({ id: null, error: expect.objectContaining({ code: -32600 }) }),
    ]);
  });

  test('an empty batch is one -32600; a batch of notifications gets no reply', async () => {
    const { session } = setup();
    expect(await answer(session, [])).toMatchObject({ id: null, error: { code: -32600 } });
    expect(await answer(session, [{ jsonrpc: '2.0', method: 'notifications/initialized' }])).toBeUndefined();
  });
});

describe('defineTool', () => {
  test('refuses a property without a type or a description (spec "Tool-server objects")', () => {
    expect(() =>
      defineTool({
        name: 't',
        description: 'd',
        inputSchema: { type: 'object', properties: { x: { type: 'string' } } },
        handler: () => textResult(''),
      }),
    ).toThrow(/"x" needs a type and a description/);
  });

  test('two tools with one name are refused by the core', () => {
    expect(() => createToolServerCore({ tools: [REFERENCE_TOOLS[0]!, REFERENCE_TOOLS[0]!] })).toThrow(
      /two tools/,
    );
  });
});
