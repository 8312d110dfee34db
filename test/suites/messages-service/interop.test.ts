import { describe, expect, test } from 'vitest';
import type { SuiteResult } from '../../../src/harness/results.js';
import { runSuite } from '../../../src/harness/run-suite.js';
import { messagesServiceSuite } from '../../../src/suites/messages-service/index.js';
import { readCompatibilityTable, tableDifferences } from '../../compatibility/tables.js';
import { MESSAGES_SERVICES } from '../../compatibility/targets.js';

// The suite against services nobody here wrote (@copilotkit/aimock, an LLM-API mock; Portkey's
// AI gateway in front of the reference service, routed by its own headers), and the comparison
// of what it measures with docs/messages-compatibility.md.

const messageOf = (result: SuiteResult, id: string) => result.checks.find((c) => c.id === id)?.message;

/** What each column's run shows beyond the table's statuses. */
const EVIDENCE: Record<string, (result: SuiteResult) => void> = {
  '@copilotkit/aimock 1.43.0': (result) => {
    expect(messageOf(result, 'messages-service.errors.invalid-rejected')).toMatch(
      /^12 rules fail: \[model missing\]/,
    );
  },
  '@portkey-ai/gateway 1.15.2 (in front of the reference)': (result) => {
    // Buffered requests reach the reference through it (its routing headers are sent); streams do not.
    expect(messageOf(result, 'messages-service.http.stream-content-type')).toContain(
      'got HTTP 500 (application/json) "{\\"status\\":\\"failure\\"',
    );
  },
};

describe('interop with services nobody here wrote (docs/messages-compatibility.md)', () => {
  test('every column has its evidence', () => {
    expect(Object.keys(EVIDENCE).sort()).toEqual(Object.keys(MESSAGES_SERVICES).sort());
  });

  for (const name of Object.keys(MESSAGES_SERVICES)) {
    test(`${name}: every check gets the outcome the compatibility table gives it`, async () => {
      const started = await MESSAGES_SERVICES[name]!();
      const result = await runSuite(messagesServiceSuite, started.target, {
        seed: 20261101,
        runs: 10,
      }).finally(() => started.close());
      const table = await readCompatibilityTable('messages-service');
      expect(tableDifferences('messages-service', table, name, result)).toEqual([]);
      EVIDENCE[name]!(result);
    }, 120_000);
  }
});
