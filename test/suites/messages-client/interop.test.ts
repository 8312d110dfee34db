import { beforeAll, describe, expect, test } from 'vitest';
import type { SuiteResult } from '../../../src/harness/results.js';
import { readCompatibilityTable, tableDifferences } from '../../compatibility/tables.js';
import { MESSAGES_CLIENTS } from '../../compatibility/targets.js';
import { ensureBuilt, runAgainst } from './helpers.js';

// The suite against messages clients nobody here wrote, and the comparison of what it
// measures with docs/messages-compatibility.md.
const SDK = '@anthropic-ai/sdk 1.12.0';
const AI_SDK = 'ai 7.0.173 + @ai-sdk/anthropic 4.0.105';
const EFFECT = '@effect/ai-anthropic 0.27.0';

beforeAll(ensureBuilt, 60_000);

const measured = new Map<string, SuiteResult>();
async function measure(name: string): Promise<SuiteResult> {
  let result = measured.get(name);
  if (result === undefined) {
    const started = await MESSAGES_CLIENTS[name]!();
    // The quick tier's own property runs (not the tests' usual 5), so the table is what a
    // user sees from `wirecheck test messages-client` with this seed.
    result = await runAgainst(started.target.client, { runs: undefined }).finally(() => started.close());
    measured.set(name, result);
  }
  return result;
}

describe('interop with messages clients nobody here wrote', () => {
  for (const name of Object.keys(MESSAGES_CLIENTS)) {
    test(`${name}: every check gets the outcome docs/messages-compatibility.md gives it`, async () => {
      const result = await measure(name);
      const table = await readCompatibilityTable('messages-client');
      expect(tableDifferences('messages-client', table, name, result)).toEqual([]);
      // Effect's client takes 1.4 s to start, 75 starts a run.
    }, 420_000);
  }

  test('the official SDK 1.x fails no must check; it warns where it departs from the spec', async () => {
    const result = await measure(SDK);
    const failed = result.checks.filter((c) => c.status === 'fail').map((c) => `${c.id}: ${c.message}`);
    expect(failed).toEqual([]);
    const auth = result.checks.find((c) => c.id === 'messages-client.auth.x-api-key')!;
    expect(auth.status).toBe('warn');
    expect(auth.message).toContain('Authorization: Bearer');
  }, 240_000);

  test('the AI SDK adapter prints an empty text block the stream opened (text-start with no delta)', async () => {
    const message = {
      id: 'msg_wc_empty_text',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [
        { type: 'text', text: '' },
        { type: 'tool_use', id: 'toolu_wc_empty_text', name: 'get_weather', input: { city: 'Zürich' } },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: 6, output_tokens: 12 },
    };
    const faults = {
      seed: 1,
      lineEnding: 'lf',
      chunking: { mode: 'fixed', size: 64 },
      splitUtf8: false,
      splitCrLf: false,
      pings: { at: [] },
      comments: { at: [] },
    };
    const result = await runAgainst((await MESSAGES_CLIENTS[AI_SDK]!()).target.client, {
      only: ['messages-client.stream.final-message'],
      replay: { seed: 1, path: '0', property: 0, value: { json: { message, splits: [[], []], faults } } },
    });
    const check = result.checks.find((c) => c.id === 'messages-client.stream.final-message')!;
    expect(check.status, check.message).toBe('pass');
    // The suite's probe, then the one replayed case: the stream was served and judged.
    expect(result.targetStarts?.count).toBe(2);
  }, 60_000);

  test('the AI SDK leaves out is_error: false and still sends the same request', async () => {
    const result = await measure(AI_SDK);
    const body = result.checks.find((c) => c.id === 'messages-client.request.body')!;
    expect(body.status).toBe('pass');
    const additions = result.checks.find((c) => c.id === 'messages-client.request.body-additions')!;
    expect(additions.message).toContain('eager_input_streaming');
    expect(additions.message).not.toContain('is_error');
  }, 240_000);

  test('Effect reports a 413 whose error type its schema lacks as malformed output, not as the status', async () => {
    const result = await measure(EFFECT);
    const check = result.checks.find((c) => c.id === 'messages-client.errors.status-413')!;
    expect(check.status).toBe('fail');
    expect(check.message).toContain('wrong failure kind "stream"');
    expect(check.actual).toContain('request_too_large');
  }, 420_000);
});
