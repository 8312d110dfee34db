import { expect, test } from 'vitest';
import { runSuite } from '../../../src/harness/run-suite.js';
import { messagesServiceSuite } from '../../../src/suites/messages-service/index.js';
import { readCompatibilityTable, tableDifferences } from '../../compatibility/tables.js';
import { MESSAGES_SERVICES } from '../../compatibility/targets.js';

// The suite against @copilotkit/aimock, an LLM-API mock nobody here wrote, and the
// comparison of what it measures with docs/messages-compatibility.md.
const COLUMN = '@copilotkit/aimock 1.43.0';

test(`${COLUMN}: every check gets the outcome docs/messages-compatibility.md gives it`, async () => {
  const aimock = await MESSAGES_SERVICES[COLUMN]!();
  try {
    const result = await runSuite(messagesServiceSuite, aimock.target, { seed: 20261101, runs: 10 });
    const table = await readCompatibilityTable('messages-service');
    expect(tableDifferences('messages-service', table, COLUMN, result)).toEqual([]);
    const invalid = result.checks.find((c) => c.id === 'messages-service.errors.invalid-rejected')!;
    expect(invalid.message).toMatch(/^12 rules fail: \[model missing\]/);
  } finally {
    await aimock.close();
  }
}, 120_000);

// Portkey's AI gateway in front of the reference service, routed by its own headers (--header).
const GATEWAY = '@portkey-ai/gateway 1.15.2 (in front of the reference)';

test(`${GATEWAY}: every check gets the outcome docs/messages-compatibility.md gives it`, async () => {
  const gateway = await MESSAGES_SERVICES[GATEWAY]!();
  try {
    const result = await runSuite(messagesServiceSuite, gateway.target, { seed: 20261101, runs: 10 });
    const table = await readCompatibilityTable('messages-service');
    expect(tableDifferences('messages-service', table, GATEWAY, result)).toEqual([]);
    // Buffered requests reach the reference through it (its routing headers are sent); streams do not.
    const streams = result.checks.find((c) => c.id === 'messages-service.http.stream-content-type')!;
    expect(streams.message).toContain('got HTTP 500 (application/json) "{\\"status\\":\\"failure\\"');
  } finally {
    await gateway.close();
  }
}, 120_000);
