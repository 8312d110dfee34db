import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { shellQuote } from '../../../src/harness/run-suite.js';
import { CASE_KEYS } from '../../../src/suites/agent/cases.js';
import { openAgent } from '../../../src/suites/agent/context.js';
import { nodeCommand } from './helpers.js';

const scratch = mkdtempSync(join(tmpdir(), 'wirecheck-agent-jobs-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * The most agent processes that ran at once while every case of the suite was asked for at
 * once (as the first check does): the agent command logs `+` when it starts and `-` when
 * it ends, each with its pid, appended in one write.
 */
async function mostAtOnce(jobs: number): Promise<{ most: number; runs: number }> {
  const log = join(scratch, `jobs-${jobs}.log`);
  const agent = `echo "+ $$" >> ${shellQuote(log)}; ${nodeCommand('./broken/conforming.mjs')}; s=$?; echo "- $$" >> ${shellQuote(log)}; exit $s`;
  const ctx = await openAgent({ agent }, { seed: 1, jobs });
  try {
    await ctx.results(CASE_KEYS);
  } finally {
    await ctx.close();
  }
  let now = 0;
  let most = 0;
  let runs = 0;
  for (const line of readFileSync(log, 'utf8').trim().split('\n')) {
    if (line.startsWith('+')) runs++;
    now += line.startsWith('+') ? 1 : -1;
    most = Math.max(most, now);
  }
  expect(now).toBe(0);
  return { most, runs };
}

test('--jobs 1 runs the agent cases one at a time', async () => {
  expect(await mostAtOnce(1)).toEqual({ most: 1, runs: CASE_KEYS.length });
}, 120_000);

test('--jobs 3 runs at most 3 agents at once, and more than one', async () => {
  const { most, runs } = await mostAtOnce(3);
  expect(runs).toBe(CASE_KEYS.length);
  expect(most).toBeGreaterThan(1);
  expect(most).toBeLessThanOrEqual(3);
}, 120_000);
