import { afterAll, beforeAll, expect, test } from 'vitest';
import { runSuite } from '../../../src/harness/run-suite.js';
import { messagesServiceSuite } from '../../../src/suites/messages-service/index.js';
import { compatibilityTable, measuredAndTable } from '../messages-compatibility-table.js';
import { startAimock } from './aimock.js';

// The suite against @copilotkit/aimock, an LLM-API mock nobody here wrote, and the
// comparison of what it measures with docs/messages-compatibility.md.
const KEY_ENV = 'WIRECHECK_TEST_AIMOCK_KEY';
const KEY = 'wc-test-key-aimock';
const COLUMN = '@copilotkit/aimock 1.43.0';

beforeAll(() => {
  process.env[KEY_ENV] = KEY;
});
afterAll(() => {
  delete process.env[KEY_ENV];
});

test(`${COLUMN}: every check gets the outcome docs/messages-compatibility.md gives it`, async () => {
  const aimock = await startAimock(KEY);
  try {
    const result = await runSuite(
      messagesServiceSuite,
      { baseUrl: aimock.baseUrl, apiKeyEnv: KEY_ENV },
      { seed: 20261101, runs: 10 },
    );
    const { columns, rows } = await compatibilityTable('messages-service');
    expect(columns).toEqual([COLUMN]);
    const { measured, table } = measuredAndTable(result, rows, COLUMN);
    expect(measured).toEqual(table);
    const invalid = result.checks.find((c) => c.id === 'messages-service.errors.invalid-rejected')!;
    expect(invalid.message).toMatch(/^12 rules fail: \[model missing\]/);
  } finally {
    await aimock.close();
  }
}, 120_000);
