import { expect, test } from 'vitest';
import { nodeCommand, runAgainst, statusById } from './helpers.js';

const P = 'messages-client.';

// The adapter under examples/ makes a client built on @anthropic-ai/sdk 1.x a target.
// The SDK authenticates with `Authorization: Bearer` and sends `anthropic-version:
// 2026-10-21` where the spec names x-api-key and 2023-06-01: warnings, not failures,
// since the real API accepts both.
test('a client on the official SDK 1.x passes every quick check, with warnings only where it departs from the spec', async () => {
  const result = await runAgainst(nodeCommand('../../../examples/anthropic-sdk-client.mjs'));
  const statuses = statusById(result);
  const failed = result.checks.filter((c) => c.status === 'fail').map((c) => `${c.id}: ${c.message}`);
  expect(failed).toEqual([]);
  expect(statuses[`${P}auth.key-sent`]).toBe('pass');
  expect(statuses[`${P}auth.x-api-key`]).toBe('warn');
  expect(statuses[`${P}headers.version-value`]).toBe('warn');
  const auth = result.checks.find((c) => c.id === `${P}auth.x-api-key`)!;
  expect(auth.message).toContain('Authorization: Bearer');
}, 180_000);
