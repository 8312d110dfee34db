import { beforeAll, describe, expect, test } from 'vitest';
import type { SuiteResult } from '../../../src/harness/results.js';
import { compatibilityTable, measuredAndTable } from '../messages-compatibility-table.js';
import { ensureBuilt, nodeCommand, runAgainst } from './helpers.js';

// The suite against messages clients nobody here wrote, and the comparison of what it
// measures with docs/messages-compatibility.md.
const TARGETS: Record<string, string> = {
  '@anthropic-ai/sdk 1.12.0': '../../../examples/anthropic-sdk-client.mjs',
  'ai 7.0.173 + @ai-sdk/anthropic 4.0.105': '../../../examples/ai-sdk-anthropic-client.mjs',
};

beforeAll(ensureBuilt, 60_000);

const measured = new Map<string, SuiteResult>();
async function measure(name: string): Promise<SuiteResult> {
  let result = measured.get(name);
  if (result === undefined) {
    result = await runAgainst(nodeCommand(TARGETS[name]!));
    measured.set(name, result);
  }
  return result;
}

describe('interop with messages clients nobody here wrote', () => {
  for (const name of Object.keys(TARGETS)) {
    test(`${name}: every check gets the outcome docs/messages-compatibility.md gives it`, async () => {
      const result = await measure(name);
      const { columns, rows } = await compatibilityTable('messages-client');
      expect(columns).toContain(name);
      const { measured: got, table } = measuredAndTable(result, rows, name);
      expect(got).toEqual(table);
    }, 240_000);
  }

  test('the official SDK 1.x fails no must check; it warns where it departs from the spec', async () => {
    const result = await measure('@anthropic-ai/sdk 1.12.0');
    const failed = result.checks.filter((c) => c.status === 'fail').map((c) => `${c.id}: ${c.message}`);
    expect(failed).toEqual([]);
    const auth = result.checks.find((c) => c.id === 'messages-client.auth.x-api-key')!;
    expect(auth.status).toBe('warn');
    expect(auth.message).toContain('Authorization: Bearer');
  }, 240_000);

  test('the AI SDK leaves out is_error: false and still sends the same request', async () => {
    const result = await measure('ai 7.0.173 + @ai-sdk/anthropic 4.0.105');
    const body = result.checks.find((c) => c.id === 'messages-client.request.body')!;
    expect(body.status).toBe('pass');
    const additions = result.checks.find((c) => c.id === 'messages-client.request.body-additions')!;
    expect(additions.message).toContain('eager_input_streaming');
    expect(additions.message).not.toContain('is_error');
  }, 240_000);
});
