import { beforeAll, describe, expect, test } from 'vitest';
import { TargetUnavailable } from '../../../src/harness/check.js';
import { runSuite } from '../../../src/harness/run-suite.js';
import { MAX_CASE_MESSAGES } from '../../../src/suites/tool-client/context.js';
import { verdictPhrase } from '../../broken-verdicts.js';
import { CASES, expected, idsOf, P, transportsOfCase } from './broken-cases.js';
import { ensureBuilt, nodeCommand, runAgainst, statusById, suite } from './helpers.js';

beforeAll(ensureBuilt, 120_000);

/**
 * Each broken client (clients/<name>.mjs: the independent client with one flaw) runs the
 * checks of its rule plus a neighbour it must still pass (broken-cases.ts), so a failure is
 * shown to come from the flaw and not from a suite that fails everything.
 */
describe('the suite fails clients that break a rule', () => {
  for (const c of CASES) {
    test(`a client that ${c.flaw} ${verdictPhrase(c)}`, async () => {
      const result = await runAgainst(
        [nodeCommand(`./clients/${c.client}.mjs`), c.args].filter(Boolean).join(' '),
        { only: idsOf(c) },
        transportsOfCase(c),
        c.protocol,
      );
      expect(statusById(result)).toEqual(expected(c));
    }, 90_000);
  }
});

test('a client that floods the mock is stopped after MAX_CASE_MESSAGES messages, and its case is judged from its first message', async () => {
  const ids = [
    `${P}stdio.result.printed`,
    `${P}sse.result.printed`,
    `${P}stdio.initialize.client-info`,
    `${P}sse.initialize.client-info`,
    `${P}http.initialize.client-info`,
  ];
  const result = await runAgainst(nodeCommand('./clients/flood-pings.mjs'), { only: ids }, [
    'stdio',
    'sse',
    'http',
  ]);
  expect(statusById(result)).toEqual({
    [`${P}stdio.result.printed`]: 'fail',
    [`${P}sse.result.printed`]: 'fail',
    [`${P}stdio.initialize.client-info`]: 'pass',
    [`${P}sse.initialize.client-info`]: 'pass',
    [`${P}http.initialize.client-info`]: 'pass',
  });
  for (const transport of ['stdio', 'sse']) {
    const printed = result.checks.find((c) => c.id === `${P}${transport}.result.printed`)!;
    // Over stdio the count is read from the journal file every 100 ms: a few more may have come.
    expect(printed.message).toMatch(/wirecheck stopped it after (\d+) messages in this case/);
    const count = Number(/stopped it after (\d+) messages/.exec(printed.message ?? '')?.[1]);
    expect(count).toBeGreaterThanOrEqual(MAX_CASE_MESSAGES);
  }
}, 90_000);

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

test('a resumption with an id the server never sent is named as such, not only as a missing result', async () => {
  const id = `${P}http.stream.resumed`;
  const result = await runAgainst(nodeCommand('./clients/http-wrong-last-event-id.mjs'), { only: [id] }, [
    'http',
  ]);
  const check = result.checks.find((c) => c.id === id)!;
  expect(check.status).toBe('warn');
  expect(check.message).toMatch(/Last-Event-ID "\d+-07", which names no event the server sent/);
}, 60_000);
