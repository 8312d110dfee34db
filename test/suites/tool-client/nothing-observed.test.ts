import { expect, test } from 'vitest';
import { nodeCommand, runAgainst, statusById } from './helpers.js';

// Checks that passed a client on nothing they could judge: request ids compared in no session
// holding two requests, an unknown tool "refused" by a client that fails every call. Over SSE
// and Streamable HTTP only, whose mocks run in this process (the stdio mock runs the build).

const P = 'tool-client.';
const TRANSPORTS = ['sse', 'http'] as const;

/** `tool-client.<t>.<rest>` for SSE and Streamable HTTP. */
function both(rest: string): string[] {
  return TRANSPORTS.map((t) => `${P}${t}.${rest}`);
}

test('a client that sends initialize and gives up is not exercised by ids.unique: no id could repeat', async () => {
  const ids = [...both('ids.unique'), ...both('ids.integer'), `${P}sse.result.printed`];
  const result = await runAgainst(nodeCommand('./clients/never-calls.mjs'), { only: ids }, TRANSPORTS);
  expect(statusById(result)).toEqual({
    [`${P}sse.ids.unique`]: 'skip',
    [`${P}http.ids.unique`]: 'skip',
    // Its initialize carries an integer id: that much is judged.
    [`${P}sse.ids.integer`]: 'pass',
    [`${P}http.ids.integer`]: 'pass',
    [`${P}sse.result.printed`]: 'fail',
  });
  const unique = result.checks.find((c) => c.id === `${P}sse.ids.unique`);
  expect(unique?.message).toMatch(/no session carried two requests/);
}, 90_000);

test('a client that sends only a notification is not exercised by ids.integer: it sent no id', async () => {
  const ids = [...both('ids.integer'), `${P}sse.lifecycle.initialized-first`];
  const result = await runAgainst(nodeCommand('./clients/only-notifies.mjs'), { only: ids }, TRANSPORTS);
  expect(statusById(result)).toEqual({
    [`${P}sse.ids.integer`]: 'skip',
    [`${P}http.ids.integer`]: 'skip',
    // The notification came before any initialize: the lifecycle check fails that, once.
    [`${P}sse.lifecycle.initialized-first`]: 'fail',
  });
  const integer = result.checks.find((c) => c.id === `${P}sse.ids.integer`);
  expect(integer?.message).toMatch(/no request/);
}, 90_000);

test('a client that lists the tools and fails every call is not exercised by errors.unknown-tool', async () => {
  const ids = [...both('errors.unknown-tool'), `${P}sse.result.printed`];
  const result = await runAgainst(
    nodeCommand('./clients/lists-then-gives-up.mjs'),
    { only: ids },
    TRANSPORTS,
  );
  expect(statusById(result)).toEqual({
    [`${P}sse.errors.unknown-tool`]: 'skip',
    [`${P}http.errors.unknown-tool`]: 'skip',
    [`${P}sse.result.printed`]: 'fail',
  });
  const unknown = result.checks.find((c) => c.id === `${P}sse.errors.unknown-tool`);
  expect(unknown?.message).toMatch(/does not finish the plain call/);
}, 90_000);

test('a client that refuses a tool missing from tools/list without calling it, and finishes the plain call, passes', async () => {
  const ids = [...both('errors.unknown-tool'), ...both('ids.unique'), `${P}sse.result.printed`];
  const result = await runAgainst(nodeCommand('./clients/refuses-unlisted.mjs'), { only: ids }, TRANSPORTS);
  expect(statusById(result)).toEqual(Object.fromEntries(ids.map((id) => [id, 'pass'])));
}, 90_000);
