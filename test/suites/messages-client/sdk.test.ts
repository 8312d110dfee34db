import { expect, test } from 'vitest';
import { nodeCommand, runAgainst, statusById } from './helpers.js';

const P = 'messages-client.';

// @anthropic-ai/sdk 1.x authenticates with `Authorization: Bearer` and sends
// `anthropic-version: 2026-10-21`; the spec asks for x-api-key and 2023-06-01.
test('a client on the official SDK 1.x fails the x-api-key rule and is warned about the version value', async () => {
  const ids = ['auth.x-api-key', 'headers.version', 'headers.version-value', 'request.body'].map(
    (id) => P + id,
  );
  const result = await runAgainst(nodeCommand('./sdk-client.mjs'), { only: ids });
  expect(statusById(result)).toEqual({
    [`${P}auth.x-api-key`]: 'fail',
    [`${P}headers.version`]: 'pass',
    [`${P}headers.version-value`]: 'warn',
    [`${P}request.body`]: 'pass',
  });
  const auth = result.checks.find((c) => c.id === `${P}auth.x-api-key`)!;
  expect(auth.message).toContain('Authorization: Bearer');
}, 60_000);
