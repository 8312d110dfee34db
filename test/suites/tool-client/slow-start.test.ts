import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { runSuite, shellQuote } from '../../../src/harness/run-suite.js';
import { SLOW_CASE_WAIT_MS } from '../../../src/suites/tool-client/context.js';
import { createToolClientSuite } from '../../../src/suites/tool-client/index.js';
import { ensureBuilt, nodeCommand, SEED } from './helpers.js';

beforeAll(ensureBuilt, 120_000);

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/**
 * A conforming client that first reaches the mock `startupMs` after its process began
 * (clients/slow-start.mjs: its own loading is spent inside that time, so load moves its first
 * contact by only the little it does after it); with `laterOnly`, its first run (the
 * preflight's) starts at once and only the later ones are slow.
 */
function slowStarter(startupMs: number, { laterOnly = false } = {}): string {
  const base = `${nodeCommand('./clients/slow-start.mjs')} ${startupMs}`;
  if (!laterOnly) return base;
  const dir = mkdtempSync(join(tmpdir(), 'wirecheck-slow-start-'));
  dirs.push(dir);
  return `${base} ${shellQuote(join(dir, 'first-run'))}`;
}

test('a client that starts slowly is judged on its work: the case budget counts from its first contact with the mock', async () => {
  // It reaches the mock 7 s after it began, then waits out two replies of 1.5 s each: at least
  // 10 s from its spawn, the whole budget, so a budget counted from the spawn would stop it.
  // Counted from the first contact it has 10 s for 3 s of replies, and load may delay that
  // contact by up to 3 s before the preflight finds the client unreachable.
  const caseTimeoutMs = 10_000;
  const startupMs = caseTimeoutMs - SLOW_CASE_WAIT_MS;
  const id = 'tool-client.stdio.result.slow-reply';
  const result = await runSuite(
    createToolClientSuite({ caseTimeoutMs, maxCommandRuns: 1 }),
    { client: slowStarter(startupMs), transports: ['stdio'] },
    { seed: SEED, runs: 1, only: [id] },
  );
  const check = result.checks.find((c) => c.id === id);
  expect(`${check?.status}: ${check?.message}`).toBe('pass: ');
  // The case did outlast the budget from the spawn: the pass shows the restart, not a roomy budget.
  expect(check?.durationMs).toBeGreaterThanOrEqual(caseTimeoutMs);
}, 180_000);

test('--start-timeout: a client that needs longer than the case budget to reach the mock at all is judged on its work', async () => {
  // 7 s of start-up against a 5 s case budget: stopped before it reached the mock (whatever the
  // load: it cannot come sooner), unless allowed 14 s, which leaves load 7 s to delay it.
  const caseTimeoutMs = 5000;
  const client = slowStarter(7000);
  const id = 'tool-client.stdio.arguments.as-given';
  const run = (startTimeoutMs?: number) =>
    runSuite(
      createToolClientSuite({ caseTimeoutMs, maxCommandRuns: 1 }),
      { client, transports: ['stdio'], ...(startTimeoutMs === undefined ? {} : { startTimeoutMs }) },
      { seed: SEED, runs: 1, only: [id] },
    ).then(
      (result) => result.checks.find((c) => c.id === id)?.status,
      (e: unknown) => e,
    );
  // The preflight never reached the mock: the target is unavailable, and the message says what to do.
  const without = await run();
  expect(without).toBeInstanceOf(Error);
  expect(String(without)).toMatch(/never reached the mock tool server.*--start-timeout SECONDS/s);
  expect(await run(14_000)).toBe('pass');
}, 180_000);

test('a client that reached the mock in the preflight but later takes longer than the case budget to start is not failed: those cases are not exercised', async () => {
  // Its first run starts at once; every later one reaches the mock only 60 s after it began,
  // far past the 8 s budget it is stopped at: nothing of those cases reached the mock.
  const caseTimeoutMs = 8000;
  const id = 'tool-client.stdio.result.round-trip';
  const result = await runSuite(
    createToolClientSuite({ caseTimeoutMs, maxCommandRuns: 1 }),
    { client: slowStarter(60_000, { laterOnly: true }), transports: ['stdio'] },
    { seed: SEED, runs: 1, only: [id] },
  );
  const check = result.checks.find((c) => c.id === id);
  expect([check?.status, check?.skipKind]).toEqual(['skip', 'not-exercised']);
  expect(check?.message).toMatch(
    /did not reach the stdio mock .* within 8 s of its start, .*--start-timeout SECONDS/s,
  );
}, 180_000);
