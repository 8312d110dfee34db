import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, test } from 'vitest';
import {
  loadToolScenario,
  outcomeOfCall,
  ScenarioFileError,
  toolScenario,
} from '../../../src/mocks/tools/index.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('tool scenarios', () => {
  test('the default scenario lists one echo tool and answers initialize with 2024-11-05', () => {
    const s = toolScenario();
    expect(s.tools.map((t) => t.name)).toEqual(['echo']);
    expect(s.protocolVersion).toBe('2024-11-05');
    expect(s.faults).toMatchObject({ endpoint: 'relative', postStatus: 202, pingFirst: false });
  });

  test('the version answered follows the transport unless the scenario names one', () => {
    expect(toolScenario({}, 'sse').protocolVersion).toBe('2024-11-05');
    expect(toolScenario({}, 'http').protocolVersion).toBe('2025-03-26');
    expect(toolScenario({ protocolVersion: '2025-06-18' }, 'http').protocolVersion).toBe('2025-06-18');
    expect(toolScenario({ protocolVersion: '2024-11-05' }, 'http').protocolVersion).toBe('2024-11-05');
  });

  test('a call of an unknown tool is an error whose message names the tool (spec "Errors")', () => {
    const outcome = outcomeOfCall(toolScenario(), 'nope', {});
    expect('error' in outcome && outcome.error.message).toContain('nope');
  });

  test('any name a client calls is a listed tool, a scripted call or an unknown tool, never a member of Object', () => {
    const scenario = toolScenario({ calls: { scripted: { result: { content: [] } } } });
    const listed = new Set(scenario.tools.map((t) => t.name));
    // The scripted-call table gave Object's method for "toString" and the like.
    const arbName = fc.oneof(fc.string(), fc.constantFrom(...Object.getOwnPropertyNames(Object.prototype)));
    fc.assert(
      fc.property(arbName, (name) => {
        const outcome = outcomeOfCall(scenario, name, {});
        if (name === 'scripted') expect(outcome).toEqual({ result: { content: [] } });
        else if (listed.has(name)) expect(outcome).toHaveProperty('result.content');
        else expect(outcome).toEqual({ error: { code: -32602, message: `Unknown tool: ${name}` } });
      }),
      { numRuns: 300, seed: 20261202 },
    );
  });

  test('absent arguments echo as an empty object (spec: absent arguments count as empty)', () => {
    expect(outcomeOfCall(toolScenario(), 'echo', undefined)).toEqual({
      result: { content: [{ type: 'text', text: '{}' }] },
    });
  });

  test('a scenario file loads; an invalid one names the file and the field', async () => {
    dir = await mkdtemp(join(tmpdir(), 'wc-scenario-'));
    const good = join(dir, 'good.json');
    const bad = join(dir, 'bad.json');
    await writeFile(good, JSON.stringify({ faults: { postStatus: 200 } }));
    await writeFile(bad, JSON.stringify({ faults: { postStatus: 201 } }));
    expect((await loadToolScenario(good)).faults.postStatus).toBe(200);
    const error = await loadToolScenario(bad).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ScenarioFileError);
    expect((error as Error).message).toContain('faults.postStatus');
    expect((error as Error).message).toContain(bad);
  });
});
