import { expect, test } from 'vitest';
import { MUST_BASES } from '../../../src/harness/check.js';
import { RETRYING_CASE_MS } from '../../../src/suites/messages-client/context.js';
import { messagesClientSuite } from '../../../src/suites/messages-client/index.js';
import { CASE_TIMEOUT_MS } from '../../../src/suites/messages-client/target.js';

test('every check states its rule and basis, and its level follows from the basis (docs/levels.md)', () => {
  for (const check of messagesClientSuite.checks) {
    expect(check.rule?.length ?? 0, check.id).toBeGreaterThan(40);
    expect(check.basis, check.id).toBeDefined();
    expect(check.level, check.id).toBe(MUST_BASES.includes(check.basis!) ? 'must' : 'should');
  }
});

test('the checks the spec does not state for every client only warn', () => {
  const should = messagesClientSuite.checks.filter((c) => c.level === 'should').map((c) => c.id);
  expect(should.sort()).toEqual(
    [
      'auth.x-api-key',
      'compat.new-stop-reason',
      'compat.unknown-block-buffered',
      'compat.unknown-block-streamed',
      'compat.unknown-deltas',
      'compat.usage-counters',
      'errors.retry-after',
      'headers.version-value',
      'processes.none-left',
      'request.body-additions',
      'stream-errors.invalid-tool-json',
      'stream-errors.no-event-line',
      'stream-errors.no-message-stop',
      'stream-errors.stall',
      'stream-errors.type-mismatch',
      'stream.ping-before-message-start',
      'stream.sse-syntax',
      'stream.unknown-events',
    ]
      .map((id) => `messages-client.${id}`)
      .sort(),
  );
});

test('a check whose case a client may retry outlasts that case: start-up, the retry budget, the grace, and the probe run again', () => {
  // A check cut at its budget fails; a client still retrying when its case ends is not judged.
  const retrying = messagesClientSuite.checks.filter((c) =>
    /^messages-client\.errors\.(status-|rate-limit|retry-after|connection-refused)/.test(c.id),
  );
  expect(retrying.length).toBeGreaterThan(8);
  for (const check of retrying) {
    expect(check.timeoutMs, check.id).toBeGreaterThanOrEqual(RETRYING_CASE_MS + 2 * (CASE_TIMEOUT_MS + 1000));
  }
});

test('stream.line-endings, one client run per line ending, has room for each run to start slowly', () => {
  // A run may take CASE_TIMEOUT_MS to reach the mock, then its case CASE_TIMEOUT_MS and the grace:
  // at 60 s for three runs, a client starting in 19 s failed though each run kept the contract.
  const check = messagesClientSuite.checks.find((c) => c.id === 'messages-client.stream.line-endings');
  expect(check?.timeoutMs).toBeGreaterThanOrEqual(3 * (2 * CASE_TIMEOUT_MS + 5000));
});
