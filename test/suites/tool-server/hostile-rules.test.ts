import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { type CheckEnv, HarnessBug, NotExercised } from '../../../src/harness/check.js';
import type { JsonRpcResponse } from '../../../src/protocol/jsonrpc/index.js';
import type { Tool } from '../../../src/protocol/mcp/index.js';
import { callPolicy, noToolMessage } from '../../../src/suites/tool-server/call-policy.js';
import type { Channel } from '../../../src/suites/tool-server/channel.js';
import { malformedChecks } from '../../../src/suites/tool-server/checks/malformed.js';
import type { ToolServerCtx } from '../../../src/suites/tool-server/context.js';
import { IdleStream } from '../../../src/suites/tool-server/idle-stream.js';
import { readTools } from '../../../src/suites/tool-server/listed-tools.js';
import { RpcPeer } from '../../../src/suites/tool-server/peer.js';
import {
  answerKind,
  defaultProblems,
  MAX_CONTENT_PROBLEMS,
  propertyCounts,
  propertyProblems,
  structuredContentProblems,
  unknownToolAnswer,
} from '../../../src/suites/tool-server/rules.js';
import {
  arbitraryForSchema,
  argumentsArbitrary,
  UngeneratedSchema,
} from '../../../src/suites/tool-server/schema-arbitrary.js';
import type { SseChannel } from '../../../src/suites/tool-server/sse-channel.js';
import { minimalArguments } from '../../../src/suites/tool-server/tool-choice.js';

// What a tool server sends, read by the suite's pure rules without the engine's errors at
// misused values (TypeError, RangeError): each such value gets a verdict instead.

/** A tool as a server may send it, past the Tool schema's types (the rules run on parsed tools, and are public). */
const rawTool = (inputSchema: unknown): Tool => ({ name: 't', inputSchema }) as unknown as Tool;

/** The error `f` throws, or undefined. */
function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  return undefined;
}

describe('schemas generated from', () => {
  test('`true` allows any value, in items and properties; `false` and null nested are UngeneratedSchema', () => {
    const anyItems = rawTool({
      type: 'object',
      properties: {
        xs: { type: 'array', items: true, minItems: 1 },
        o: { type: 'object', properties: { a: true } },
      },
      required: ['xs', 'o'],
    });
    for (const args of fc.sample(argumentsArbitrary(anyItems), { seed: 1, numRuns: 20 })) {
      expect((args.xs as unknown[]).length).toBeGreaterThanOrEqual(1);
      expect(typeof args.o).toBe('object');
    }
    const never = thrown(() =>
      argumentsArbitrary(
        rawTool({ type: 'object', properties: { o: { type: 'object', properties: { a: false } } } }),
      ),
    );
    expect(never).toBeInstanceOf(UngeneratedSchema);
    expect((never as Error).message).toBe('the schema of "a" is false: no value fits');
    const nullish = thrown(() => arbitraryForSchema({ type: 'array', items: null }, 'xs'));
    expect(nullish).toBeInstanceOf(UngeneratedSchema);
    expect((nullish as Error).message).toBe('the schema of "xs[]" is null, not a JSON Schema');
    expect(thrown(() => arbitraryForSchema('string'))).toBeInstanceOf(UngeneratedSchema);
  });

  test('an enum of 200,000 values and a type list of 200,000 entries, without a spread into a call', () => {
    const values = Array.from({ length: 200_000 }, (_, i) => i);
    const picked = fc.sample(arbitraryForSchema({ enum: values }), { seed: 2, numRuns: 50 });
    for (const v of picked) expect(values).toContain(v);
    // The same seed, the same values.
    expect(fc.sample(arbitraryForSchema({ enum: values }), { seed: 2, numRuns: 50 })).toEqual(picked);
    const types = Array.from({ length: 200_000 }, (_, i) => (i % 2 === 0 ? 'string' : 'boolean'));
    for (const v of fc.sample(arbitraryForSchema({ type: types }), { seed: 3, numRuns: 20 }))
      expect(['string', 'boolean']).toContain(typeof v);
  });

  test('integer bounds past the safe integers give safe integers (they gave Infinity and values of 1e300)', () => {
    for (const schema of [
      { type: 'integer', minimum: 1e300 },
      { type: 'integer', minimum: -1e300 },
    ]) {
      for (const v of fc.sample(arbitraryForSchema(schema), { seed: 4, numRuns: 20 }))
        expect(Number.isSafeInteger(v), JSON.stringify(schema)).toBe(true);
    }
  });
});

describe('property schemas that are no object', () => {
  const tool = rawTool({ type: 'object', properties: { x: 'string', y: true, z: null }, required: ['x'] });

  test('are not counted or judged by the property rules (the list check judges them)', () => {
    expect(propertyCounts([tool])).toEqual({ properties: 0, defaults: 0 });
    expect(propertyProblems([tool])).toEqual([]);
    expect(defaultProblems([tool])).toEqual([]);
  });

  test('get a string as their minimal value', () => {
    expect(minimalArguments(tool)).toEqual({ x: 'wirecheck' });
  });
});

describe('a success with `"error": null` beside its result', () => {
  const success = {
    jsonrpc: '2.0',
    id: 1,
    result: { content: [{ type: 'text', text: 'nope' }], isError: true },
    error: null,
  } as unknown as JsonRpcResponse;

  test('is a result to answerKind and unknownToolAnswer', () => {
    expect(answerKind(success)).toBe('a result with isError: true');
    expect(unknownToolAnswer(success, 'nope')).toEqual({ kind: 'is-error', names: true, text: 'nope' });
  });

  test('an error reply that does not parse is malformed, not a thrown ZodError', () => {
    const broken = { jsonrpc: '2.0', id: 1, error: { code: 'x' } } as unknown as JsonRpcResponse;
    expect(unknownToolAnswer(broken, 'n').kind).toBe('malformed');
  });
});

describe('structuredContentProblems', () => {
  test('130,000 wrong items list the first problems and say there are more (the spread overflowed the stack)', () => {
    const schema = { type: 'object', properties: { xs: { type: 'array', items: { type: 'string' } } } };
    const problems = structuredContentProblems(schema, { xs: Array(130_000).fill(1) });
    expect(problems).toHaveLength(MAX_CONTENT_PROBLEMS + 1);
    expect(problems[0]).toBe('structuredContent.xs[0]: 1 is not of type "string"');
    expect(problems.at(-1)).toBe(`and more (only the first ${MAX_CONTENT_PROBLEMS} problems are listed)`);
  });

  test('exactly as many problems as listed say nothing more', () => {
    const schema = { type: 'array', items: { type: 'string' } };
    expect(structuredContentProblems(schema, Array(MAX_CONTENT_PROBLEMS).fill(1))).toHaveLength(
      MAX_CONTENT_PROBLEMS,
    );
  });
});

describe('tools the Tool schema refuses', () => {
  test('are left out of the tools read, and counted and named', () => {
    const page = {
      tools: [
        { name: 'ok', inputSchema: { type: 'object' } },
        { name: 'info', inputSchema: null },
        { name: 'x'.repeat(100), inputSchema: { type: 'object', properties: { x: 'string' } } },
        { name: 7, inputSchema: { type: 'object' } },
        null,
      ],
    };
    const { tools, unread } = readTools([
      page,
      { tools: [{ name: 'second', inputSchema: { type: 'object' } }] },
    ]);
    expect(tools.map((t) => t.name)).toEqual(['ok', 'second']);
    expect(unread).toEqual({
      count: 4,
      names: ['"info"', JSON.stringify('x'.repeat(80)), '(no name)', '(no name)'],
    });
  });

  test('a check with no tool left says why, not that the server lists none', () => {
    const policy = callPolicy([], undefined, undefined, { count: 2, names: ['"info"', '"status"'] });
    expect(noToolMessage(policy, 'calls')).toBe(
      'calls: no tool to call; 2 listed tools left out for a malformed entry (tools.list-shape judges it): "info", "status"',
    );
    expect(noToolMessage(callPolicy([], undefined, undefined), 'calls')).toBe('the server lists no tools');
  });
});

describe('a watch whose pick throws', () => {
  test('does not throw in the data handler; the check reading it meets a HarnessBug', () => {
    const peer = new RpcPeer('p', () => {});
    const watch = peer.watch(({ value }) => Number((value as { code: unknown }).code));
    const text = '{"code":{"toString":1}}';
    expect(() => peer.receive(text, JSON.parse(text), true)).not.toThrow();
    expect(() => watch.count).toThrow(HarnessBug);
    expect(() => watch.found).toThrow(/Cannot convert object to primitive value/);
  });
});

describe('IdleStream lets a bug of wirecheck through', () => {
  const typeError = () => {
    // The engine's own error at a misused value.
    const nothing = null as unknown as { field: number };
    return thrown(() => nothing.field) as Error;
  };

  test('met while opening the first stream: the keep-alive check meets the HarnessBug, not "not exercised"', async () => {
    const idle = new IdleStream(
      async () => {
        throw typeError();
      },
      async () => {},
    );
    await idle.start();
    await expect(idle.watched()).rejects.toBeInstanceOf(HarnessBug);
  });

  test('a stream the server refused is still not exercised', async () => {
    const idle = new IdleStream(
      async () => {
        throw new Error('HTTP 503');
      },
      async () => {},
    );
    await idle.start();
    await expect(idle.watched()).rejects.toBeInstanceOf(NotExercised);
  });

  test('met while opening the stream watched again: a HarnessBug', async () => {
    let opened = 0;
    const first = {
      gone: () => undefined,
      close: async () => {},
      frames: [],
      frameItems: () => [],
      openedAt: performance.now(),
    } as unknown as SseChannel;
    const idle = new IdleStream(
      async () => {
        opened++;
        if (opened === 1) return first;
        throw new HarnessBug('opened wrong');
      },
      async () => {},
    );
    await idle.start();
    expect(await idle.letGo()).toBe(true);
    await expect(idle.watched()).rejects.toBeInstanceOf(HarnessBug);
  });
});

test('malformed input: a HarnessBug met opening the second session reaches the harness', async () => {
  const peer = new RpcPeer('malformed', () => {});
  const channel = {
    transport: 'stdio',
    peer,
    sendText: async (text: string) => {
      peer.recordSent(text);
      return undefined;
    },
    // The first session ended at the unparseable line: a second one is asked for.
    gone: () => 'the process exited with code 1',
    close: async () => {},
  } as unknown as Channel;
  const ctx = {
    replyMs: 200,
    shared: <T>(_key: string, make: () => Promise<T>) => make(),
    connect: async (label: string) => {
      if (label === 'malformed') return channel;
      throw new HarnessBug('a bug of wirecheck');
    },
  } as unknown as ToolServerCtx;
  const env = { seed: 1, runs: 1, full: false, signal: new AbortController().signal } as CheckEnv;
  await expect(malformedChecks[0]!.run(ctx, env)).rejects.toThrow('a bug of wirecheck');
});
