import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BashToolResult, restartText } from '../../src/protocol/bash/index.js';
import { type BashRunner, createBashRunner, serveJsonLines } from '../../src/runner/index.js';
import { tempBase } from './helpers.js';

const cleanup: (() => Promise<void>)[] = [];
let runner: BashRunner;

beforeAll(async () => {
  runner = await createBashRunner({ workdir: join(await tempBase(cleanup), 'wd'), timeoutS: 10 });
});
afterAll(async () => {
  await runner?.close();
  for (const c of cleanup.reverse()) await c();
});

const toolUse = (id: string, input: unknown, extra: object = {}) =>
  JSON.stringify({ type: 'tool_use', id, name: 'bash', input, ...extra });

async function serve(chunks: (string | Uint8Array)[]): Promise<BashToolResult[]> {
  const out: string[] = [];
  await serveJsonLines({
    runner,
    input: (async function* () {
      yield* chunks;
    })(),
    writeLine: (line) => void out.push(line),
  });
  const text = out.join('');
  expect(text.endsWith('\n') || text === '').toBe(true);
  // The contract line is exactly the tool_result block: no extra fields.
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => BashToolResult.strict().parse(JSON.parse(l)));
}

describe('the JSON Lines runner contract (TARGETS.md, runner)', () => {
  test('one result line per input line, in order, malformed lines included', async () => {
    const lines = [
      toolUse('t1', { command: 'echo one' }),
      '{"type": "tool_use", "id": "broken"',
      toolUse('t2', { command: 'echo a\u0000b' }),
      '',
      toolUse('t3', { command: 'x' }, { name: 'python' }),
      '{"type":"tool_use","id":"t4","name":"bash","input":{"command":"echo a\u0000b"}}',
      toolUse('t5', { restart: true }),
      toolUse('t6', { command: 'sleep 0.2; echo six' }),
      toolUse('t7', {}),
    ];
    const results = await serve([`${lines.join('\n')}\n`]);
    expect(results.map((r) => [r.tool_use_id, r.is_error])).toEqual([
      ['t1', false],
      ['', true],
      ['t2', true],
      ['', true],
      ['t3', true],
      ['', true],
      ['t5', false],
      ['t6', false],
      ['t7', true],
    ]);
    expect(results[0]?.content).toBe('one\n');
    expect(results[1]?.content).toMatch(/not JSON/);
    expect(results[2]?.content).toMatch(/NUL/);
    expect(results[3]?.content).toMatch(/empty/);
    expect(results[4]?.content).toMatch(/unknown tool "python"/);
    expect(results[6]?.content).toBe(restartText());
    expect(results[7]?.content).toBe('six\n');
    expect(results[8]?.content).toMatch(/command/);
  });

  test('lines split anywhere across chunks, CRLF, and a last line without a newline', async () => {
    const text = `${toolUse('c1', { command: 'echo é' })}\r\n${toolUse('c2', { command: 'echo two' })}`;
    const bytes = Buffer.from(text, 'utf8');
    const chunks = Array.from({ length: Math.ceil(bytes.length / 7) }, (_, i) =>
      bytes.subarray(i * 7, i * 7 + 7),
    );
    const results = await serve(chunks);
    expect(results.map((r) => [r.tool_use_id, r.content])).toEqual([
      ['c1', 'é\n'],
      ['c2', 'two\n'],
    ]);
  });

  test('a 1 MB command line is run', async () => {
    const results = await serve([`${toolUse('big', { command: `: ${'z'.repeat(1 << 20)}\necho done` })}\n`]);
    expect(results).toEqual([
      { type: 'tool_result', tool_use_id: 'big', content: 'done\n', is_error: false },
    ]);
  });

  test('a line that is not UTF-8 gets an error result and the next line still runs', async () => {
    const bad = Buffer.from([0x7b, 0xff, 0x7d, 0x0a]);
    const results = await serve([bad, `${toolUse('after', { command: 'echo ok' })}\n`]);
    expect(results.map((r) => r.tool_use_id)).toEqual(['', 'after']);
    expect(results[0]?.content).toMatch(/UTF-8/);
  });

  test('a result the output is behind on holds the next line until it drained: a client that sends commands and reads nothing costs a pipe, not memory', async () => {
    let release!: () => void;
    const caughtUp = new Promise<void>((resolve) => {
      release = resolve;
    });
    const out: string[] = [];
    const serving = serveJsonLines({
      runner,
      input: (async function* () {
        yield `${toolUse('a', { command: 'echo a' })}\n${toolUse('b', { command: 'echo b' })}\n`;
      })(),
      writeLine: (line) => {
        out.push(line);
        return out.length === 1 ? caughtUp : undefined;
      },
    });
    await new Promise((r) => setTimeout(r, 500));
    expect(out).toHaveLength(1);
    release();
    expect(await serving).toEqual({ lines: 2, aborted: false });
    expect(out).toHaveLength(2);
  });

  test('no input, no output', async () => {
    expect(await serve([])).toEqual([]);
  });

  test('an abort signal stops the command in progress and the serving', async () => {
    const controller = new AbortController();
    const out: string[] = [];
    const serving = serveJsonLines({
      runner,
      input: (async function* () {
        yield `${toolUse('long', { command: 'sleep 30' })}\n${toolUse('never', { command: 'echo no' })}\n`;
      })(),
      writeLine: (line) => void out.push(line),
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 300);
    expect(await serving).toEqual({ lines: 0, aborted: true });
    expect(out).toEqual([]);
  });
});
