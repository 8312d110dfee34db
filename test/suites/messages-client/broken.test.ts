import { describe, expect, test } from 'vitest';
import { TargetUnavailable } from '../../../src/harness/check.js';
import { runSuite } from '../../../src/harness/run-suite.js';
import { messagesClientSuite } from '../../../src/suites/messages-client/index.js';
import { nodeCommand, runAgainst, statusById } from './helpers.js';

const P = 'messages-client.';

/**
 * Each broken client (broken/<name>.mjs: the independent client with one flaw) runs the
 * checks of its rule family plus a neighbour it must still pass, so a failure is shown to
 * come from the flaw and not from a suite that fails everything.
 */
const CASES: { client: string; flaw: string; fails: string[]; passes: string[]; warns?: string[] }[] = [
  {
    client: 'crash-on-ping',
    flaw: 'crashes on a ping frame',
    fails: ['stream.pings'],
    passes: ['stream.comments'],
  },
  {
    client: 'decode-per-chunk',
    flaw: 'decodes every network read on its own, breaking characters cut across reads',
    fails: ['stream.utf8-split'],
    passes: ['buffered.final-message'],
  },
  {
    client: 'parse-each-fragment',
    flaw: 'parses every partial_json fragment on arrival',
    fails: ['stream.tool-input-fragments'],
    passes: ['buffered.final-message'],
  },
  {
    client: 'exit-zero-on-429',
    flaw: 'exits 0 on a 429',
    fails: ['errors.rate-limit'],
    passes: ['errors.status-500'],
  },
  {
    client: 'rate-limit-as-status',
    flaw: 'reports a 429 with kind status',
    fails: ['errors.rate-limit'],
    passes: ['errors.status-400'],
  },
  {
    client: 'bearer-auth',
    flaw: 'sends Authorization: Bearer instead of x-api-key',
    fails: [],
    warns: ['auth.x-api-key'],
    passes: ['auth.key-sent', 'headers.version', 'request.body'],
  },
  {
    client: 'omit-key-header',
    flaw: 'sends no key header although the key is set',
    fails: ['auth.key-sent'],
    passes: ['headers.version', 'headers.content-type'],
  },
  {
    client: 'send-without-key',
    flaw: 'sends the request without a key',
    fails: ['auth.missing-key'],
    passes: ['auth.key-sent', 'auth.x-api-key'],
  },
  {
    client: 'accept-truncated',
    flaw: 'prints a message from a stream that ended early',
    fails: ['stream-errors.no-message-stop', 'stream-errors.ends-mid-block', 'stream-errors.disconnect'],
    passes: ['stream-errors.error-event-mid-stream'],
  },
  {
    client: 'ignore-stream-flag',
    flaw: 'asks for a buffered reply although stdin says stream: true',
    fails: ['request.body', 'stream.line-endings'],
    passes: ['buffered.final-message'],
  },
];

describe('the suite fails clients that break a rule', () => {
  for (const c of CASES) {
    const verdict = [...c.fails.map((id) => `fails ${id}`), ...(c.warns ?? []).map((id) => `warns on ${id}`)];
    test(`a client that ${c.flaw} ${verdict.join(', ')}`, async () => {
      const ids = [...c.fails, ...(c.warns ?? []), ...c.passes].map((id) => P + id);
      const result = await runAgainst(nodeCommand(`./broken/${c.client}.mjs`), { only: ids });
      const expected = Object.fromEntries([
        ...c.fails.map((id) => [P + id, 'fail']),
        ...(c.warns ?? []).map((id) => [P + id, 'warn']),
        ...c.passes.map((id) => [P + id, 'pass']),
      ]);
      expect(statusById(result)).toEqual(expected);
    }, 60_000);
  }
});

test('a failure names what was expected and what the client did', async () => {
  const result = await runAgainst(nodeCommand('./broken/rate-limit-as-status.mjs'), {
    only: [`${P}errors.rate-limit`],
  });
  const check = result.checks[0]!;
  expect(check.message).toContain('wrong failure kind "status"');
  expect(check.expected).toContain('"kind":"rate_limit"');
  expect(check.actual).toContain('"status":429');
  expect(check.reproduce).toContain('--only messages-client.errors.rate-limit');
}, 60_000);

test('a command that cannot be started makes the target unavailable', async () => {
  await expect(
    runSuite(messagesClientSuite, { client: 'wirecheck-no-such-command-4711' }, { seed: 1, runs: 1 }),
  ).rejects.toBeInstanceOf(TargetUnavailable);
}, 30_000);
