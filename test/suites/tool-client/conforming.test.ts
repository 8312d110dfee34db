import { beforeAll, expect, test } from 'vitest';
import { TOOL_TRANSPORTS } from '../../../src/suites/tool-client/index.js';
import { ensureBuilt, nodeCommand, notPassed, runAgainst } from './helpers.js';

beforeAll(ensureBuilt, 120_000);

// A client written from the spec alone (clients/base.mjs without flaws): a check that fails
// it would be a false failure, the worst bug a conformance harness can have.
test('an independent client that follows the spec passes every check over all three transports', async () => {
  const result = await runAgainst(nodeCommand('./clients/conforming.mjs'), {}, TOOL_TRANSPORTS);
  expect(notPassed(result)).toEqual([]);
  expect(result.checks.some((c) => c.id.startsWith('tool-client.stdio.'))).toBe(true);
  expect(result.checks.some((c) => c.id.startsWith('tool-client.sse.'))).toBe(true);
  // The run names no revision: stdio and SSE speak 2024-11-05 and Streamable HTTP 2025-03-26, the
  // first revision that has it. The checks of other revisions do not apply: the 2025-06-18 header
  // rules, the 2025-11-25 retry rule, the 2024-11-05 version over http and the later-revision offer
  // over stdio and SSE.
  expect(
    result.checks
      .filter((c) => c.status === 'skip')
      .map((c) => c.id)
      .sort(),
  ).toEqual([
    'tool-client.http.initialize.protocol-version',
    'tool-client.http.protocol-version-header',
    'tool-client.http.protocol-version-header.negotiated',
    'tool-client.http.stream.retry-respected',
    'tool-client.sse.initialize.offers-revision',
    'tool-client.sse.protocol-version-header',
    'tool-client.stdio.initialize.offers-revision',
  ]);
}, 300_000);

test('a client that differs only where the rules allow (argument keys sorted, batched notifications and answers, a ping answer with _meta, an SSE probe session first) passes every check', async () => {
  const conforming = await runAgainst(nodeCommand('./clients/conforming.mjs'), {}, TOOL_TRANSPORTS);
  const varied = await runAgainst(nodeCommand('./clients/equivalent-variations.mjs'), {}, TOOL_TRANSPORTS);
  expect(notPassed(varied)).toEqual([]);
  const statuses = (r: typeof varied) => Object.fromEntries(r.checks.map((c) => [c.id, c.status]));
  expect(statuses(varied)).toEqual(statuses(conforming));
}, 600_000);

test('a client that lists the tools in a server process of its own before starting another for the call (a session per operation) passes every stdio check', async () => {
  const conforming = await runAgainst(nodeCommand('./clients/conforming.mjs'), {}, ['stdio']);
  const split = await runAgainst(nodeCommand('./clients/list-in-own-session.mjs'), {}, ['stdio']);
  expect(notPassed(split)).toEqual([]);
  const statuses = (r: typeof split) => Object.fromEntries(r.checks.map((c) => [c.id, c.status]));
  expect(statuses(split)).toEqual(statuses(conforming));
}, 300_000);

test('an independent client speaking 2025-11-25 waits the retry of a dropped stream and passes the retry check', async () => {
  const only = ['tool-client.http.stream.resumed', 'tool-client.http.stream.retry-respected'];
  const result = await runAgainst(
    `${nodeCommand('./clients/revisions.mjs')} 2025-11-25 negotiated`,
    { only },
    ['http'],
    '2025-11-25',
  );
  expect(Object.fromEntries(result.checks.map((c) => [c.id, c.status]))).toEqual(
    Object.fromEntries(only.map((id) => [id, 'pass'])),
  );
}, 120_000);

/**
 * MCP Streamable HTTP: a client answered 404 for its session MUST start a new session with a
 * new initialize. What else of the old session arrives around it (a second request in flight
 * that gets its own 404, the DELETE of the old session) is no failure.
 */
for (const [client, how] of [
  ['http-reinit-concurrent', 'has two requests in flight when its session expires'],
  ['http-reinit-delete-expired', 'sends DELETE for the expired session after starting a new one'],
  ['http-reinit-no-retry', 'starts a new session and reports the request that met the 404 as failed'],
] as const) {
  test(`a client that ${how} passes http.session-expired.reinitialize`, async () => {
    const only = [
      'tool-client.http.session-expired.reinitialize',
      'tool-client.http.session-id',
      'tool-client.http.result.printed',
    ];
    const result = await runAgainst(nodeCommand(`./clients/${client}.mjs`), { only }, ['http']);
    expect(notPassed(result)).toEqual([]);
    expect(Object.fromEntries(result.checks.map((c) => [c.id, c.status]))).toEqual(
      Object.fromEntries(only.map((id) => [id, 'pass'])),
    );
  }, 120_000);
}

test('a client whose tools/call overtakes its notifications/initialized (that POST began first, its body trickles in) is not failed for the order: over HTTP it is not shown', async () => {
  const lifecycle = ['initialized-first', 'initialize-awaited', 'requests-after-initialize-result'];
  const only = TOOL_TRANSPORTS.flatMap((t) => lifecycle.map((rule) => `tool-client.${t}.lifecycle.${rule}`));
  const result = await runAgainst(
    nodeCommand('./clients/overlap-initialized.mjs'),
    { only },
    TOOL_TRANSPORTS,
  );
  expect(notPassed(result)).toEqual([]);
  const notShown = result.checks.filter((c) => c.status === 'skip');
  expect(notShown.map((c) => [c.id, c.skipKind])).toEqual([
    ['tool-client.sse.lifecycle.initialized-first', 'not-exercised'],
    ['tool-client.http.lifecycle.initialized-first', 'not-exercised'],
  ]);
  for (const c of notShown) {
    expect(c.message).toMatch(
      /tools\/call came after the initialize result but before the notifications\/initialized notification, though the notification's HTTP request had begun to arrive \d+ ms before the tools\/call's/,
    );
  }
}, 120_000);
