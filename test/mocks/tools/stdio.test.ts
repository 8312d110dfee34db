import { PassThrough } from 'node:stream';
import { describe, expect, test } from 'vitest';
import { runStdioMockToolServer, type ToolScenarioInput } from '../../../src/mocks/tools/index.js';
import { call, init } from './requests.js';

/** Run the stdio mock on `lines`, stdin closed after them; returns what it wrote and its journal. */
async function run(scenario: ToolScenarioInput, lines: string[]) {
  const input = new PassThrough();
  const out: string[] = [];
  const done = runStdioMockToolServer(scenario, { input, write: (t) => void out.push(t) });
  for (const l of lines) input.write(`${l}\n`);
  input.end();
  const { end, journal } = await done;
  return { end, out: out.join(''), journal: journal.entries() };
}

describe('stdio mock tool server (spec "Tool server, stdio transport")', () => {
  test('answers each request with one JSON line, in order, even when stdin closes right after', async () => {
    const { end, out } = await run({}, [init, call]);
    expect(end).toBe('eof');
    const lines = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.id)).toEqual([1, 2]);
    expect(lines[1].result).toEqual({ content: [{ type: 'text', text: '{"x":1}' }] });
  });

  test('a line that is not JSON is journaled as it arrived and answered with a parse error', async () => {
    const { out, journal } = await run({}, ['not json at all']);
    expect(JSON.parse(out.trim())).toMatchObject({ id: null, error: { code: -32700 } });
    expect(journal[0]).toMatchObject({ direction: 'received', text: 'not json at all' });
    expect(journal[0]?.parseError).toBeDefined();
  });

  test('a batch is answered item by item; an empty batch and a batch inside one are Invalid Request (id null), as the reference server', async () => {
    const ping = (id: number) => ({ jsonrpc: '2.0', id, method: 'ping' });
    const { out } = await run({}, [JSON.stringify([]), JSON.stringify([[ping(1)], ping(2)])]);
    const answers = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(answers).toHaveLength(3);
    expect(answers.filter((a) => a.id === null && a.error?.code === -32600)).toHaveLength(2);
    expect(answers).toContainEqual({ jsonrpc: '2.0', id: 2, result: {} });
    // The nested ping was not answered as if it stood alone.
    expect(answers.some((a) => a.id === 1)).toBe(false);
  });

  test('nonJsonStdout writes its banner line just before the tools/call reply', async () => {
    const { out } = await run({ faults: { nonJsonStdout: 'BANNER' } }, [init, call]);
    const lines = out.trim().split('\n');
    expect(lines[1]).toBe('BANNER');
    expect(JSON.parse(lines[2]!).id).toBe(2);
  });

  test('closeStreamAfter ends the session after that many messages', async () => {
    const input = new PassThrough();
    const out: string[] = [];
    const done = runStdioMockToolServer(
      { faults: { closeStreamAfter: 1 } },
      { input, write: (t) => void out.push(t) },
    );
    input.write(`${init}\n`);
    const { end } = await done;
    input.end();
    expect(end).toBe('closed');
    expect(out).toHaveLength(1);
  });

  test('the journal records sent and received messages in order, with times', async () => {
    const { journal } = await run({}, [init, call]);
    const kinds = journal
      .filter((e) => e.kind === 'message')
      .map((e) => `${e.direction}:${(e.value as { id: number }).id}`);
    expect([...kinds].sort()).toEqual(['received:1', 'received:2', 'sent:1', 'sent:2']);
    // Each request is journaled before its reply (both lines may arrive in one read).
    for (const id of [1, 2])
      expect(kinds.indexOf(`received:${id}`)).toBeLessThan(kinds.indexOf(`sent:${id}`));
    for (let i = 1; i < journal.length; i++)
      expect(journal[i]!.atMs).toBeGreaterThanOrEqual(journal[i - 1]!.atMs);
  });
});
