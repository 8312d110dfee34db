import { beforeAll, expect, test } from 'vitest';
import { runSuite } from '../../../src/harness/run-suite.js';
import { createToolClientSuite, referenceToolClientCommand } from '../../../src/suites/tool-client/index.js';
import { ensureBuilt, SEED } from './helpers.js';

beforeAll(ensureBuilt, 120_000);

test('a client that starts slowly is judged on its work: the case budget counts from its first contact with the mock', async () => {
  // 5 s of start-up, then replies that take 1.5 s each: past a 6 s case budget counted from
  // the spawn (the check then warned that the client did not finish the call), well within
  // one counted from the first message.
  const client = `sleep 5; exec ${referenceToolClientCommand()}`;
  const id = 'tool-client.stdio.result.slow-reply';
  const result = await runSuite(
    createToolClientSuite({ caseTimeoutMs: 6000, maxCommandRuns: 1 }),
    { client, transports: ['stdio'] },
    { seed: SEED, runs: 1, only: [id] },
  );
  const check = result.checks.find((c) => c.id === id);
  expect(`${check?.status}: ${check?.message}`).toBe('pass: ');
}, 90_000);

test('--start-timeout: a client that needs longer than the case budget to reach the mock at all is judged on its work', async () => {
  // 5 s of start-up against a 4 s case budget: stopped before it reached the mock, unless allowed 10 s.
  const client = `sleep 5; exec ${referenceToolClientCommand()}`;
  const id = 'tool-client.stdio.arguments.as-given';
  const run = (startTimeoutMs?: number) =>
    runSuite(
      createToolClientSuite({ caseTimeoutMs: 4000, maxCommandRuns: 1 }),
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
  expect(await run(10_000)).toBe('pass');
}, 90_000);
