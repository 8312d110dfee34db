import { describe, expect, test } from 'vitest';
import type { SuiteResult } from '../../../src/harness/results.js';
import { createSuitePrinter } from '../../../src/reporters/console.js';
import { UNANSWERED_IN_A_ROW } from '../../../src/suites/tool-server/silence.js';
import { quickSuite, runAgainst, testServer } from './helpers.js';

/** What the console prints for the run's failures, grouped as a user sees them. */
function printed(result: SuiteResult): string {
  const printer = createSuitePrinter({ color: false }, { verbose: false });
  const now = result.checks.map((c) => printer.add(c)).filter((t) => t !== undefined);
  return [...now, ...printer.end(result)].join('\n');
}

function occurrences(text: string, part: string): number {
  return text.split(part).length - 1;
}

const ran = (result: SuiteResult) => result.checks.filter((c) => c.skipKind !== 'not-run');

describe('a server that stops answering after initialize is gone after a few requests, not a list of failures', () => {
  for (const [server, flaw, transport] of [
    ['silent-after-initialize', 'answers nothing after initialize', 'stdio'],
    [
      'silent-after-initialize',
      'answers nothing after initialize (POSTs accepted, nothing on the stream)',
      'sse',
    ],
    ['deep-replies', 'answers with replies nested too deep to read', 'stdio'],
  ] as const) {
    test(`${transport === 'sse' ? 'an SSE' : 'a stdio'} server that ${flaw}`, async () => {
      const result = await runAgainst(await testServer(server, transport), {}, quickSuite);
      const gone = result.checks.filter((c) => c.targetGone === true);
      expect(gone).toHaveLength(1);
      const cause = gone[0]!.sharedCause!;
      expect(cause).toMatch(new RegExp(`left ${UNANSWERED_IN_A_ROW} requests in a row unanswered`));
      expect(result.stopped?.kind).toBe('target-gone');
      // The run stops early: the initialize checks (version negotiation included), the few that left
      // requests unanswered, and no more.
      expect(ran(result).length).toBeLessThanOrEqual(9);
      expect(result.checks.filter((c) => c.skipKind === 'not-run').length).toBeGreaterThan(30);
      // stdout-purity is not blamed for another check's silence.
      expect(result.checks.find((c) => c.id === 'tool-server.stdio.stdout-purity')?.status).toBe('skip');
      const failed = result.checks.filter((c) => c.status === 'fail' || c.status === 'warn').map((c) => c.id);
      expect(failed).toEqual([
        'tool-server.lifecycle.before-initialize',
        'tool-server.ping.answered',
        'tool-server.jsonrpc.unknown-method',
      ]);
      expect(occurrences(printed(result), 'requests in a row unanswered')).toBe(1);
      if (server === 'deep-replies') {
        // A reply it cannot read ends the wait for it, instead of the reply budget.
        expect(result.checks.find((c) => c.id === 'tool-server.ping.answered')?.message).toMatch(
          /nested too deep to read arrived instead of a reply/,
        );
      }
    }, 120_000);
  }
});

test('alone, the SSE session model ends against a server silent after initialize as silence, not as a lost reply', async () => {
  // Its calls count for the silence watch only after their late window, and only when none of
  // them was answered: this server accepts every POST and answers none, so the watch ends the run.
  const id = 'tool-server.sse.session-model';
  const result = await runAgainst(
    await testServer('silent-after-initialize', 'sse'),
    { only: [id] },
    quickSuite,
  );
  const model = result.checks.find((c) => c.id === id);
  expect(model).toMatchObject({ status: 'fail', targetGone: true });
  expect(model?.message).toMatch(
    /^the server left 3 requests in a row unanswered \(tools\/list, ping, ping\)/,
  );
  expect(result.stopped?.kind).toBe('target-gone');
}, 120_000);

describe('a tools/list that gets no reply is one cause, not a failure of every check that needs the tools', () => {
  test('the must checks that need the list fail with one shared cause, a should check is not exercised, stdout-purity judges the lines it saw', async () => {
    const result = await runAgainst(
      await testServer('silent-tools-list', 'stdio'),
      {
        only: [
          'tool-server.tools.list-shape',
          'tool-server.tools.property-schema',
          'tool-server.tools.call-result-shape',
          'tool-server.stdio.stdout-purity',
        ],
      },
      quickSuite,
    );
    const byId = new Map(result.checks.map((c) => [c.id, c]));
    expect(byId.get('tool-server.stdio.stdout-purity')?.status).toBe('pass');
    expect(byId.get('tool-server.tools.property-schema')).toMatchObject({
      status: 'skip',
      skipKind: 'not-exercised',
    });
    const list = byId.get('tool-server.tools.list-shape');
    const call = byId.get('tool-server.tools.call-result-shape');
    expect(list?.status).toBe('fail');
    expect(call?.status).toBe('fail');
    expect(list?.sharedCause).toMatch(/^tools\/list: tools\/list got no reply/);
    expect(call?.sharedCause).toBe(list?.sharedCause);
    expect(occurrences(printed(result), 'tools/list got no reply')).toBe(1);
    expect(result.stopped).toBeUndefined();
  }, 120_000);

  test('the transport checks that call a tool only when there is one do without it, and pass', async () => {
    const ids = [
      'tool-server.sse.closed-session-refused',
      'tool-server.sse.concurrent-routing',
      'tool-server.sse.no-cross-session-reply',
    ];
    const result = await runAgainst(await testServer('silent-tools-list', 'sse'), { only: ids }, quickSuite);
    expect(Object.fromEntries(result.checks.map((c) => [c.id, c.status]))).toEqual(
      Object.fromEntries(ids.map((id) => [id, 'pass'])),
    );
  }, 120_000);
});
