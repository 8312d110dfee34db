import { describe, expect, test } from 'vitest';
import type { SuiteResult } from '../../../src/harness/results.js';
import { quickSuite, runAgainst, testServer, testSuite } from './helpers.js';

// Over SSE, sse.concurrent-routing sends 48 requests at once on 8 sessions, half of them tool
// calls (two only when a first call was slow), sse.session-model echo calls among pings on many
// sessions, and sse.closed-session asks the diagnostic tool how many calls are in flight. A server
// whose tools take seconds (JSON-RPC sets no deadline) is slow, not broken: its late replies are
// waited for, requests left unanswered in a session that still answers are not judged, and they
// do not make the server count as gone. A server that keeps a call running after its stream
// closed still fails.

const ROUTING = 'tool-server.sse.concurrent-routing';
const CLOSED = 'tool-server.sse.closed-session';
const MODEL = 'tool-server.sse.session-model';

const check = (result: SuiteResult, id: string) => result.checks.find((c) => c.id === id)!;

describe(`${ROUTING} against slow tools`, () => {
  for (const [server, flaw] of [
    ['slow-tools', 'answers each tool call 3 to 6 s late'],
    ['slow-async-calls', 'answers each tool call 4 s late'],
  ] as const) {
    test(`a server that ${flaw}, pings at once, passes: the late replies are waited for and come home`, async () => {
      const result = await runAgainst(await testServer(server, 'sse'), { only: [ROUTING] }, quickSuite);
      const c = check(result, ROUTING);
      expect(c.status, c.message).toBe('pass');
    }, 120_000);
  }

  test('a server serving each session one message at a time (calls 3 s, the pings queued behind them) passes with the default budget and with a short one: its first call is slow, so the burst calls it on two sessions only', async () => {
    const long = await runAgainst(await testServer('serial-calls', 'sse'), { only: [ROUTING] }, testSuite);
    expect(check(long, ROUTING).status, check(long, ROUTING).message).toBe('pass');
    // Before, with 24 calls in the burst, the pings queued behind them were not answered within
    // the short budget (not exercised); two calls leave them answered in time.
    const short = await runAgainst(await testServer('serial-calls', 'sse'), { only: [ROUTING] }, quickSuite);
    expect(check(short, ROUTING).status, check(short, ROUTING).message).toBe('pass');
  }, 120_000);
});

describe(`${MODEL} against slow tools`, () => {
  test('a server that answers each tool call 4 s late (past the 1.5 s budget), pings at once, passes: the late echo replies are waited for together', async () => {
    // Before, the first echo call unanswered within the budget failed the check as a lost reply.
    const result = await runAgainst(
      await testServer('slow-async-calls', 'sse'),
      { only: [MODEL] },
      quickSuite,
    );
    expect(check(result, MODEL).status, check(result, MODEL).message).toBe('pass');
  }, 120_000);
});

describe(`${CLOSED} against slow tools`, () => {
  test('a server whose diagnostic tool answers in 2-3 s, then 6 s (past the budget), and which aborts the call of a closed session passes', async () => {
    const result = await runAgainst(
      await testServer('slow-tools-in-flight', 'sse'),
      { only: [CLOSED] },
      testSuite,
    );
    const c = check(result, CLOSED);
    expect(c.status, c.message).toBe('pass');
  }, 120_000);

  test('a server that shows no calls in flight (no slow tool, no in_flight_calls) is not exercised, saying why: no abort was seen', async () => {
    // Before, it passed with nothing observed.
    const c = check(
      await runAgainst(await testServer('conforming', 'sse'), { only: [CLOSED] }, quickSuite),
      CLOSED,
    );
    expect(c).toMatchObject({ status: 'skip', skipKind: 'not-exercised' });
    expect(c.message).toMatch(/offers no `slow` tool taking `ms` that --call-tools allows/);
  }, 120_000);

  test('a server that aborts the call of a closed session passes; one that keeps it running fails, its diagnostic fast or 3 s slow', async () => {
    const aborts = check(
      await runAgainst(await testServer('slow-tool', 'sse'), { only: [CLOSED] }, quickSuite),
      CLOSED,
    );
    expect(aborts.status, aborts.message).toBe('pass');
    const kept = check(
      await runAgainst(await testServer('slow-tool-kept', 'sse'), { only: [CLOSED] }, quickSuite),
      CLOSED,
    );
    expect(kept.status).toBe('fail');
    expect(kept.message).toMatch(
      /not aborted: diagnostics, asked \d+ ms after the close, reports in_flight_calls 1/,
    );
    const slowKept = check(
      await runAgainst(await testServer('slow-tools-kept', 'sse'), { only: [CLOSED] }, testSuite),
      CLOSED,
    );
    expect(slowKept.status).toBe('fail');
    expect(slowKept.message).toMatch(/not aborted/);
  }, 120_000);
});
