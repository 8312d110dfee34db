import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { expect, test } from 'vitest';
import type { Tool } from '../../../src/protocol/mcp/index.js';
import { argumentsArbitrary, UngeneratedSchema } from '../../../src/suites/tool-server/schema-arbitrary.js';
import { quickSuite, runAgainst, serverScript, stdioTarget } from './helpers.js';

const tool = (properties: Record<string, Record<string, unknown>>): Tool => ({
  name: 't',
  inputSchema: { type: 'object', properties, required: Object.keys(properties) },
});

test('values as long as a schema asks are generated: a 66-character hash, 768 numbers, 50 characters at least', () => {
  const args = fc.sample(
    argumentsArbitrary(
      tool({
        hash: { type: 'string', minLength: 66, maxLength: 66 },
        vector: { type: 'array', items: { type: 'number' }, minItems: 768, maxItems: 768 },
        name: { type: 'string', minLength: 50 },
        tags: { type: 'array', items: { type: 'string' }, minItems: 8 },
      }),
    ),
    { seed: 1, numRuns: 20 },
  );
  for (const a of args) {
    expect([...(a.hash as string)]).toHaveLength(66);
    expect(a.vector).toHaveLength(768);
    expect([...(a.name as string)].length).toBeGreaterThanOrEqual(50);
    expect((a.tags as unknown[]).length).toBeGreaterThanOrEqual(8);
  }
});

test('a schema no value fits, or whose smallest value is huge, is refused by name, not thrown at the server', () => {
  const refused = (properties: Record<string, Record<string, unknown>>) => {
    try {
      argumentsArbitrary(tool(properties));
    } catch (e) {
      expect(e).toBeInstanceOf(UngeneratedSchema);
      return (e as Error).message;
    }
    return 'generated';
  };
  expect(refused({ code: { type: 'string', minLength: 10, maxLength: 5 } })).toBe(
    'minLength 10 is more than maxLength 5 of "code": no value fits',
  );
  expect(refused({ blob: { type: 'string', minLength: 1e9 } })).toMatch(
    /minLength 1000000000 of "blob" is more than/,
  );
  expect(
    refused({ grid: { type: 'array', minItems: 1000, items: { type: 'array', minItems: 1000 } } }),
  ).toMatch(/smallest arguments hold \d+ values, more than/);
  expect(refused({ n: { type: 'array', minItems: 2.5, maxItems: Number.NaN } })).toBe('generated');
});

test('a server whose tools need long arguments passes generated-arguments, calling them; the tool no value fits is left out', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'wirecheck-bounded-'));
  const log = join(dir, 'calls.txt');
  process.env.WIRECHECK_TEST_CALL_LOG = log;
  try {
    const result = await runAgainst(
      stdioTarget(`${serverScript('bounded-arguments')} --transport stdio`, 'all'),
      { only: ['tool-server.tools.generated-arguments', 'tool-server.tools.not-called'] },
      quickSuite,
    );
    expect(result.checks.map((c) => [c.id, c.status])).toEqual([
      ['tool-server.tools.generated-arguments', 'pass'],
      ['tool-server.tools.not-called', 'skip'],
    ]);
    // The tool left out is named, with why: the pass does not claim it.
    expect(result.checks[1]?.message).toContain(
      'not called with generated arguments, since none could be made for their schemas: contradictory: minLength 10 is more than maxLength 5 of "code": no value fits',
    );
    const calls = (await readFile(log, 'utf8')).split('\n');
    expect(calls).toContain('hash_lookup');
    expect(calls).not.toContain('contradictory');
  } finally {
    delete process.env.WIRECHECK_TEST_CALL_LOG;
    await rm(dir, { recursive: true, force: true });
  }
}, 120_000);
