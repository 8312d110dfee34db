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
