import { describe, expect, test } from 'vitest';
import { TargetUnavailable } from '../../../src/harness/check.js';
import { PROTOCOL_REVISIONS, type ProtocolRevision } from '../../../src/protocol/mcp/index.js';
import { referenceToolServerCommand, type ToolServerTarget } from '../../../src/suites/tool-server/index.js';
import { notPassed, quickSuite, runAgainst, serverScript, statusById, stdioTarget } from './helpers.js';

// --protocol on the tool-server suite, both directions: the reference server and the
// official SDK's pass under the revisions they speak; a server that breaks one revision rule
// fails (or warns on) exactly that rule's check, and only under the revisions it holds in.
// dist/ is built once by the global setup (test/global-setup.ts) before any test runs.

const at = (target: ToolServerTarget, protocol: ProtocolRevision): ToolServerTarget => ({
  ...target,
  protocol,
});
const revisionsServer = (flaw?: string) =>
  stdioTarget(`${serverScript('revisions')}${flaw === undefined ? '' : ` --flaw ${flaw}`}`, 'all');

/** The checks that judge versions and revision rules. */
const REVISION_CHECKS = [
  'tool-server.initialize.',
  'tool-server.jsonrpc.batch-answered',
  'tool-server.tools.invalid-params',
  'tool-server.tools.invalid-arguments-result',
  'tool-server.tools.structured-content',
  'tool-server.tools.name-format',
];

function verdicts(statuses: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(statuses).filter(([, s]) => s !== 'pass'));
}

describe('tool-server suite under each MCP revision', () => {
  for (const revision of PROTOCOL_REVISIONS) {
    test(`the reference server passes every quick check over stdio under ${revision}`, async () => {
      const result = await runAgainst(at(stdioTarget(referenceToolServerCommand('stdio')), revision));
      expect(notPassed(result)).toEqual([]);
      const status = statusById(result);
      expect(status['tool-server.initialize.supported-version-echoed']).toBe('pass');
      expect(
        status[
          revision === '2024-11-05'
            ? 'tool-server.initialize.protocol-version'
            : 'tool-server.initialize.requested-revision'
        ],
      ).toBe('pass');
      if (revision === '2025-03-26') expect(status['tool-server.jsonrpc.batch-answered']).toBe('pass');
      else expect(status['tool-server.jsonrpc.batch-answered']).toBe('skip');
      const invalid = revision === '2025-11-25' ? 'invalid-arguments-result' : 'invalid-params';
      expect(status[`tool-server.tools.${invalid}`]).toBe('pass');
    }, 120_000);
  }

  for (const revision of ['2025-06-18', '2025-11-25'] as const) {
    test(`the official SDK server passes the revision checks under ${revision}, structured output included`, async () => {
      const result = await runAgainst(at(stdioTarget(serverScript('sdk-structured'), 'all'), revision), {
        only: REVISION_CHECKS,
      });
      // The SDK answers invalid arguments as an isError result in every revision, which only
      // 2025-11-25 asks for: before it, the -32602 check warns (as the compatibility table says).
      expect(notPassed(result).map((l) => l.split(':').slice(0, 2).join(':'))).toEqual(
        revision === '2025-11-25' ? [] : ['tool-server.tools.invalid-params: warn'],
      );
      expect(statusById(result)['tool-server.tools.structured-content']).toBe('pass');
      expect(statusById(result)['tool-server.initialize.requested-revision']).toBe('pass');
    }, 120_000);
  }

  test('a conforming server of every revision passes each revision, with the checks of others not applicable', async () => {
    for (const revision of PROTOCOL_REVISIONS) {
      const result = await runAgainst(at(revisionsServer(), revision), { only: REVISION_CHECKS }, quickSuite);
      expect(notPassed(result), revision).toEqual([]);
      const skipped = result.checks.filter((c) => c.status === 'skip' && c.skipKind === 'not-applicable');
      for (const c of skipped) expect(c.message, c.id).toMatch(/only; this run speaks/);
    }
  }, 180_000);

  test('a server answering 2024-11-05 to every version it knows, though it offers 2025-11-25, fails the echo check (and cannot be tested as 2025-06-18)', async () => {
    // MCP lets a server answer a version it does not support with another: a run as 2025-06-18
    // has nothing of 2025-06-18 to judge, and says which --protocol the server does answer.
    const june = runAgainst(
      at(revisionsServer('stuck-version'), '2025-06-18'),
      { only: REVISION_CHECKS },
      quickSuite,
    );
    await expect(june).rejects.toBeInstanceOf(TargetUnavailable);
    await expect(june).rejects.toThrow(
      'the server answered 2024-11-05: it does not speak 2025-06-18; test it with --protocol 2024-11-05',
    );
    // Under 2024-11-05 it answers what it is asked: only the echo check sees the contradiction.
    const old = await runAgainst(
      at(revisionsServer('stuck-version'), '2024-11-05'),
      { only: REVISION_CHECKS },
      quickSuite,
    );
    expect(statusById(old)['tool-server.initialize.protocol-version']).toBe('pass');
    expect(statusById(old)['tool-server.initialize.supported-version-echoed']).toBe('fail');
  }, 120_000);

  test('a server answering an unknown version with that version fails the unsupported-version check only', async () => {
    const result = await runAgainst(
      at(revisionsServer('echo-unknown'), '2025-06-18'),
      { only: REVISION_CHECKS },
      quickSuite,
    );
    const status = statusById(result);
    expect(status['tool-server.initialize.unsupported-version']).toBe('fail');
    // Nothing to ask for again: the server offered no version it supports.
    expect(status['tool-server.initialize.supported-version-echoed']).toBe('skip');
    expect(status['tool-server.initialize.requested-revision']).toBe('pass');
  }, 120_000);

  test("an unknown version answered with the spec's example error (data.supported) meets the must and warns; a bare error fails", async () => {
    const listed = await runAgainst(
      at(revisionsServer('unknown-error'), '2025-06-18'),
      { only: REVISION_CHECKS },
      quickSuite,
    );
    expect(verdicts(statusById(listed))).toMatchObject({
      'tool-server.initialize.unsupported-version-result': 'warn',
    });
    const status = statusById(listed);
    expect(status['tool-server.initialize.unsupported-version']).toBe('pass');
    // The listed versions are asked for again, and echoed.
    expect(status['tool-server.initialize.supported-version-echoed']).toBe('pass');
    expect(notPassed(listed)).toEqual([
      expect.stringMatching(
        /^tool-server\.initialize\.unsupported-version-result: warn: initialize asking for 1999-01-01 was answered with an error listing the supported versions \(2024-11-05, /,
      ),
    ]);
    const bare = await runAgainst(
      at(revisionsServer('unknown-bare-error'), '2025-06-18'),
      { only: REVISION_CHECKS },
      quickSuite,
    );
    const c = Object.fromEntries(bare.checks.map((k) => [k.id, k]));
    expect(c['tool-server.initialize.unsupported-version']?.status).toBe('fail');
    expect(c['tool-server.initialize.unsupported-version']?.message).toContain(
      'with an error that lists no supported version (error.data.supported)',
    );
    expect(c['tool-server.initialize.unsupported-version-result']).toMatchObject({
      status: 'skip',
      skipKind: 'not-exercised',
    });
    expect(c['tool-server.initialize.supported-version-echoed']).toMatchObject({ status: 'skip' });
  }, 120_000);

  test('a server refusing batches fails the batch check under 2025-03-26 only', async () => {
    const march = await runAgainst(
      at(revisionsServer('no-batch'), '2025-03-26'),
      { only: REVISION_CHECKS },
      quickSuite,
    );
    expect(verdicts(statusById(march))).toEqual({
      'tool-server.initialize.protocol-version': 'skip',
      'tool-server.jsonrpc.batch-answered': 'fail',
      'tool-server.tools.invalid-arguments-result': 'skip',
      'tool-server.tools.name-format': 'skip',
      'tool-server.tools.structured-content': 'skip',
    });
    const june = await runAgainst(
      at(revisionsServer('no-batch'), '2025-06-18'),
      { only: REVISION_CHECKS },
      quickSuite,
    );
    expect(notPassed(june)).toEqual([]);
  }, 120_000);

  test('structuredContent that breaks the outputSchema fails under 2025-06-18 and is not judged under 2025-03-26', async () => {
    const june = await runAgainst(
      at(revisionsServer('structured-mismatch'), '2025-06-18'),
      { only: REVISION_CHECKS },
      quickSuite,
    );
    expect(notPassed(june)).toEqual([
      expect.stringMatching(
        /^tool-server\.tools\.structured-content: fail: get_weather declares an outputSchema, and its result does not conform: structuredContent\.conditions: required, absent/,
      ),
    ]);
    const march = await runAgainst(
      at(revisionsServer('structured-mismatch'), '2025-03-26'),
      { only: REVISION_CHECKS },
      quickSuite,
    );
    expect(notPassed(march)).toEqual([]);
  }, 120_000);

  test('a tool name with a space warns under 2025-11-25 only', async () => {
    const nov = await runAgainst(
      at(revisionsServer('bad-tool-name'), '2025-11-25'),
      { only: REVISION_CHECKS },
      quickSuite,
    );
    expect(notPassed(nov)).toEqual([
      expect.stringMatching(
        /^tool-server\.tools\.name-format: warn: .*"get weather" has characters other than/,
      ),
    ]);
    const june = await runAgainst(
      at(revisionsServer('bad-tool-name'), '2025-06-18'),
      { only: REVISION_CHECKS },
      quickSuite,
    );
    expect(notPassed(june)).toEqual([]);
  }, 120_000);

  test('invalid arguments as -32602 warn under 2025-11-25 and pass before', async () => {
    const nov = await runAgainst(
      at(revisionsServer('invalid-args-error'), '2025-11-25'),
      { only: REVISION_CHECKS },
      quickSuite,
    );
    expect(notPassed(nov).map((l) => l.split(':')[0])).toEqual([
      'tool-server.tools.invalid-arguments-result',
    ]);
    const june = await runAgainst(
      at(revisionsServer('invalid-args-error'), '2025-06-18'),
      { only: REVISION_CHECKS },
      quickSuite,
    );
    expect(statusById(june)['tool-server.tools.invalid-params']).toBe('pass');
  }, 120_000);
});
