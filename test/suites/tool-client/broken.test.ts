import { beforeAll, describe, expect, test } from 'vitest';
import { TargetUnavailable } from '../../../src/harness/check.js';
import { runSuite } from '../../../src/harness/run-suite.js';
import { ensureBuilt, nodeCommand, runAgainst, statusById, suite } from './helpers.js';

beforeAll(ensureBuilt, 120_000);

const P = 'tool-client.';

/**
 * Each broken client (clients/<name>.mjs: the independent client with one flaw) runs the
 * checks of its rule plus a neighbour it must still pass, so a failure is shown to come
 * from the flaw and not from a suite that fails everything.
 */
const CASES: { client: string; flaw: string; fails?: string[]; warns?: string[]; passes: string[] }[] = [
  {
    client: 'newer-protocol-version',
    flaw: 'asks for protocol version 2025-06-18 in initialize',
    fails: ['stdio.initialize.protocol-version', 'sse.initialize.protocol-version'],
    passes: ['stdio.initialize.client-info'],
  },
  {
    client: 'no-client-info',
    flaw: 'sends no clientInfo',
    fails: ['stdio.initialize.client-info'],
    passes: ['stdio.initialize.capabilities'],
  },
  {
    client: 'no-initialized',
    flaw: 'never sends notifications/initialized',
    fails: ['stdio.lifecycle.initialized-first', 'sse.lifecycle.initialized-first'],
    passes: ['stdio.result.printed'],
  },
  {
    client: 'call-before-initialized',
    flaw: 'sends tools/call before notifications/initialized',
    fails: ['sse.lifecycle.initialized-first'],
    passes: ['sse.result.printed'],
  },
  {
    client: 'same-id',
    flaw: 'uses id 1 for every request',
    fails: ['stdio.ids.unique', 'sse.ids.unique'],
    passes: ['stdio.result.printed'],
  },
  {
    client: 'string-ids',
    flaw: 'uses string ids',
    warns: ['stdio.ids.integer'],
    passes: ['stdio.ids.unique'],
  },
  {
    client: 'ignore-ping',
    flaw: "ignores the server's ping",
    fails: ['stdio.ping.answered', 'sse.ping.answered'],
    passes: ['sse.result.printed'],
  },
  {
    client: 'endpoint-as-is',
    flaw: 'does not resolve a relative endpoint',
    fails: ['sse.endpoint.relative'],
    passes: ['sse.endpoint.absolute'],
  },
  {
    client: 'always-prefix',
    flaw: 'prefixes the origin to an absolute endpoint',
    fails: ['sse.endpoint.absolute'],
    passes: ['sse.endpoint.relative'],
  },
  {
    client: 'only-202',
    flaw: 'takes a POST answered 200 as a failure',
    warns: ['sse.post.status-200'],
    passes: ['sse.result.printed'],
  },
  {
    client: 'crash-on-comment',
    flaw: 'crashes on an SSE comment',
    fails: ['sse.stream.comments'],
    passes: ['sse.result.printed'],
  },
  {
    client: 'fail-on-unknown-notification',
    flaw: 'fails on an unknown notification',
    warns: ['stdio.notifications.unknown-tolerated', 'sse.notifications.unknown-tolerated'],
    passes: ['stdio.result.printed'],
  },
  {
    client: 'wrong-result',
    flaw: 'prints the text instead of the result object',
    fails: ['stdio.result.printed', 'sse.result.round-trip'],
    passes: ['stdio.arguments.as-given'],
  },
  {
    client: 'drop-arguments',
    flaw: 'sends empty arguments',
    fails: ['stdio.arguments.as-given', 'sse.result.round-trip'],
    passes: ['stdio.arguments.absent'],
  },
  {
    client: 'exit-zero-on-error',
    flaw: 'exits 0 after a failure',
    fails: ['stdio.errors.jsonrpc-error', 'sse.errors.unknown-tool', 'sse.errors.stream-closed'],
    passes: ['stdio.result.printed'],
  },
  {
    client: 'hang-on-close',
    // Over SSE the next POST is answered 400 (no active stream), which it does report.
    flaw: 'keeps waiting when the server process goes away',
    fails: ['stdio.errors.stream-closed'],
    passes: ['stdio.errors.jsonrpc-error'],
  },
  {
    client: 'non-json-as-text',
    flaw: 'takes a non-JSON stdout line as the result',
    fails: ['stdio.non-json-stdout.no-wrong-result'],
    warns: ['stdio.non-json-stdout.error'],
    passes: ['stdio.result.printed'],
  },
  {
    client: 'skip-non-json',
    flaw: 'skips non-JSON stdout lines',
    warns: ['stdio.non-json-stdout.error'],
    passes: ['stdio.non-json-stdout.no-wrong-result'],
  },
  {
    client: 'kill-first',
    flaw: 'signals the stdio server before closing its stdin',
    warns: ['stdio.shutdown-order'],
    passes: ['stdio.result.printed'],
  },
  {
    client: 'no-accept',
    flaw: 'opens the stream without Accept: text/event-stream',
    fails: ['sse.http.accept'],
    passes: ['sse.http.content-type'],
  },
  {
    client: 'text-plain-post',
    flaw: 'POSTs with Content-Type: text/plain',
    fails: ['sse.http.content-type'],
    passes: ['sse.http.accept'],
  },
  {
    client: 'same-origin-only',
    flaw: 'refuses an endpoint on another origin (as the official SDK does)',
    fails: ['sse.endpoint.other-origin'],
    passes: ['sse.endpoint.absolute'],
  },
  {
    client: 'ignore-version',
    flaw: 'carries on whatever protocol version the server answers',
    warns: ['stdio.initialize.version-checked', 'sse.initialize.version-checked'],
    passes: ['stdio.initialize.protocol-version'],
  },
  {
    client: 'no-await',
    flaw: 'sends initialized and tools/call before the initialize result',
    fails: ['stdio.lifecycle.initialize-awaited', 'sse.lifecycle.initialize-awaited'],
    passes: ['stdio.lifecycle.initialized-first'],
  },
  {
    client: 'fail-on-cancel',
    flaw: 'fails its call on a stray notifications/cancelled',
    warns: ['stdio.notifications.cancel-progress-tolerated', 'sse.notifications.cancel-progress-tolerated'],
    passes: ['stdio.notifications.unknown-tolerated'],
  },
  {
    client: 'impatient',
    flaw: 'gives up on a reply after 500 ms',
    warns: ['stdio.result.slow-reply'],
    passes: ['stdio.result.printed'],
  },
];

describe('the suite fails clients that break a rule', () => {
  for (const c of CASES) {
    const fails = c.fails ?? [];
    const warns = c.warns ?? [];
    const verdict = [...fails.map((id) => `fails ${id}`), ...warns.map((id) => `warns on ${id}`)];
    test(`a client that ${c.flaw} ${verdict.join(', ')}`, async () => {
      const ids = [...fails, ...warns, ...c.passes].map((id) => P + id);
      const result = await runAgainst(nodeCommand(`./clients/${c.client}.mjs`), { only: ids });
      const expected = Object.fromEntries([
        ...fails.map((id) => [P + id, 'fail']),
        ...warns.map((id) => [P + id, 'warn']),
        ...c.passes.map((id) => [P + id, 'pass']),
      ]);
      expect(statusById(result)).toEqual(expected);
    }, 90_000);
  }
});

test('a failure names what was expected, what the client did, and shows the session', async () => {
  const result = await runAgainst(nodeCommand('./clients/newer-protocol-version.mjs'), {
    only: [`${P}sse.initialize.protocol-version`],
  });
  const check = result.checks[0]!;
  expect(check.message).toContain('"2025-06-18"');
  expect(check.expected).toBe('"2024-11-05"');
  expect(check.evidence?.kind).toBe('jsonrpc');
  const evidence = check.evidence as { messages: { direction: string; text: string }[]; mark?: number };
  expect(evidence.messages[evidence.mark ?? -1]?.text).toContain('"initialize"');
  expect(check.reproduce).toContain('--only tool-client.sse.initialize.protocol-version');
}, 60_000);

/**
 * Equivalent payloads (issue "Semantic comparison"): a client that writes out the default
 * isError: false, or leaves one out, prints the same result and passes every check that
 * compares results.
 */
for (const client of ['add-is-error-default', 'drop-false-is-error']) {
  test(`a client that prints an equivalent result (${client}) passes the result checks`, async () => {
    const ids = [
      'stdio.result.printed',
      'sse.result.round-trip',
      'stdio.ping.answered',
      'sse.stream.comments',
    ].map((id) => P + id);
    const result = await runAgainst(nodeCommand(`./clients/${client}.mjs`), { only: ids });
    expect(statusById(result)).toEqual(Object.fromEntries(ids.map((id) => [id, 'pass'])));
  }, 120_000);
}

test('a client that prints a wrong result fails the result checks only, with every difference', async () => {
  const ids = [
    'stdio.result.printed',
    'stdio.ping.answered',
    'sse.stream.comments',
    'sse.endpoint.relative',
  ].map((id) => P + id);
  const result = await runAgainst(nodeCommand('./clients/wrong-result.mjs'), { only: ids });
  expect(statusById(result)).toEqual({
    [`${P}stdio.result.printed`]: 'fail',
    [`${P}stdio.ping.answered`]: 'pass',
    [`${P}sse.stream.comments`]: 'pass',
    [`${P}sse.endpoint.relative`]: 'pass',
  });
  const printed = result.checks.find((c) => c.id === `${P}stdio.result.printed`)!;
  expect(printed.message).toMatch(/differs from the one the mock returned: \$: expected \{"content"/);
}, 120_000);

test('a client that never reaches the mock (a missing script) is unavailable, with its stderr', async () => {
  const error = await runSuite(
    suite,
    { client: `${nodeCommand('./clients/does-not-exist.mjs')}` },
    { seed: 1, runs: 1 },
  ).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TargetUnavailable);
  expect((error as Error).message).toMatch(/never reached the mock tool server/);
  expect((error as Error).message).toMatch(/Cannot find module/);
}, 60_000);

test('a command that cannot be started makes the target unavailable', async () => {
  await expect(
    runSuite(suite, { client: 'wirecheck-no-such-command-4711' }, { seed: 1, runs: 1 }),
  ).rejects.toBeInstanceOf(TargetUnavailable);
}, 30_000);
