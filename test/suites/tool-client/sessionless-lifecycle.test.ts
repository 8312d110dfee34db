import { expect, test } from 'vitest';
import { nodeCommand, runAgainst, statusById } from './helpers.js';

// Over Streamable HTTP the session id comes with the initialize result: what a client sends
// before it names no session. Sent after initialize, it did not come "before initialize".

const P = 'tool-client.http.lifecycle.';

test('a client that sends initialized and tools/call before the initialize result fails initialize-awaited only', async () => {
  const ids = [`${P}initialized-first`, `${P}initialize-awaited`];
  const result = await runAgainst(nodeCommand('./clients/no-await.mjs'), { only: ids }, ['http']);
  expect(statusById(result)).toEqual({
    [`${P}initialized-first`]: 'pass',
    [`${P}initialize-awaited`]: 'fail',
  });
}, 90_000);

test('a client that never sends Mcp-Session-Id is not said to send initialized before initialize', async () => {
  const id = `${P}initialized-first`;
  const result = await runAgainst(nodeCommand('./clients/http-no-session-id.mjs'), { only: [id] }, ['http']);
  const check = result.checks.find((c) => c.id === id);
  expect(check?.message ?? '').not.toMatch(/came before initialize/);
  expect(check?.status).toBe('pass');
}, 90_000);
