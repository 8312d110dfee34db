import { describe, expect, test } from 'vitest';
import { referenceToolServerCommand } from '../../../src/suites/tool-server/index.js';
import { expectedVerdicts, verdictById } from '../../broken-verdicts.js';
import { CASES } from './broken-cases.js';
import { httpTarget, quickSuite, runAgainst, stdioTarget, testServer } from './helpers.js';

// Same seed, same target, same verdicts (issue "Determinism"): each target runs 5 times
// with one seed and every run must give the same status for every check, a skip's kind
// included (not exercised, not applicable).
const RUNS = 5;

async function verdictsOf(make: () => Promise<Parameters<typeof runAgainst>[0]>, only?: readonly string[]) {
  const sets: Record<string, string>[] = [];
  for (let i = 0; i < RUNS; i++) {
    // --jobs 1 and the default alternate: over stdio the default also starts spare processes.
    const jobs = i % 2 === 0 ? { jobs: 1 } : {};
    const result = await runAgainst(
      await make(),
      { ...jobs, ...(only === undefined ? {} : { only }) },
      quickSuite,
    );
    sets.push(verdictById(result));
  }
  return sets;
}

describe(`five runs with one seed give one set of verdicts`, () => {
  test('the reference server over stdio (every quick check)', async () => {
    const sets = await verdictsOf(async () => stdioTarget(referenceToolServerCommand('stdio')));
    for (const set of sets.slice(1)) expect(set).toEqual(sets[0]);
    expect(Object.values(sets[0]!)).not.toContain('fail');
  }, 240_000);

  test('the conforming test server over SSE (the SSE checks; keep-alive has its own tests, keep-alive-interval.test.ts)', async () => {
    const ids = transportChecks('sse').filter((id) => id !== 'tool-server.sse.keep-alive');
    const sets = await verdictsOf(() => testServer('conforming', 'sse'), ids);
    for (const set of sets.slice(1)) expect(set).toEqual(sets[0]);
    expect(Object.keys(sets[0]!)).toContain('tool-server.jsonrpc.notification-no-reply');
    expect(Object.values(sets[0]!)).not.toContain('fail');
  }, 240_000);

  test('a conforming test server over Streamable HTTP, with event ids (the HTTP checks, resumption included)', async () => {
    const sets = await verdictsOf(() => httpTarget('streamable-resumable'), transportChecks('http'));
    for (const set of sets.slice(1)) expect(set).toEqual(sets[0]);
    expect(sets[0]).toMatchObject({
      'tool-server.http.no-cross-session-reply': 'pass',
      'tool-server.http.resume-replays-after': 'pass',
      'tool-server.jsonrpc.notification-no-reply': 'pass',
    });
    expect(Object.values(sets[0]!)).not.toContain('fail');
  }, 240_000);

  for (const name of [
    'broadcast',
    'route-unknown-to-first',
    'wrong-session',
    'no-400',
    'keep-closed-session',
  ]) {
    const c = CASES.find((k) => k.server === name && k.transport === 'sse')!;
    test(`the broken server that ${c.flaw}: the same failures every run`, async () => {
      const want = expectedVerdicts(c, 'tool-server');
      const sets = await verdictsOf(() => testServer(c.server, c.transport), Object.keys(want));
      for (const set of sets) expect(set).toEqual(want);
    }, 120_000);
  }
});

/**
 * The checks of one transport, the tool checks, and notification-no-reply, whose transport
 * decides where a wrong reply would show (an SSE stream, a POST's body).
 */
function transportChecks(transport: 'sse' | 'http'): string[] {
  return quickSuite.checks
    .map((c) => c.id)
    .filter(
      (id) =>
        id.startsWith(`tool-server.${transport}.`) ||
        id.startsWith('tool-server.tools.') ||
        id === 'tool-server.jsonrpc.notification-no-reply',
    );
}
