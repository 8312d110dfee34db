import { expect, test } from 'vitest';
import { TargetUnavailable } from '../../../src/harness/check.js';
import type { ProtocolRevision } from '../../../src/protocol/mcp/index.js';
import type { ToolServerTarget } from '../../../src/suites/tool-server/index.js';
import { quickSuite, runAgainst, serverScript, statusById, stdioTarget } from './helpers.js';

// initialize.requested-revision judges a run with --protocol only, so the broken-server case list
// (no --protocol) cannot hold its failing server. A server answering another version that has the
// form of an MCP revision (a date), known to wirecheck or later than any it knows, cannot be tested
// as the one asked for at all (exit 2; revisions.test.ts for the known ones); one answering a
// version that is no date is left to this check.

const at = (target: ToolServerTarget, protocol: ProtocolRevision): ToolServerTarget => ({
  ...target,
  protocol,
});
const newerAlways = () => stdioTarget(`${serverScript('newer-revision-always')} --transport stdio`, 'all');
const notARevisionAlways = () =>
  stdioTarget(`${serverScript('not-a-revision-always')} --transport stdio`, 'all');

const INITIALIZE_CHECKS = [
  'tool-server.initialize.result-shape',
  'tool-server.initialize.protocol-version',
  'tool-server.initialize.requested-revision',
  'tool-server.initialize.unsupported-version',
  'tool-server.initialize.supported-version-echoed',
];

test('a server answering its own newer revision (2026-07-28) to every client cannot be tested under a later --protocol (exit 2), saying it answered a revision wirecheck does not know', async () => {
  for (const revision of ['2025-06-18', '2025-11-25'] as const) {
    const run = runAgainst(at(newerAlways(), revision), { only: INITIALIZE_CHECKS }, quickSuite);
    await expect(run).rejects.toThrow(TargetUnavailable);
    await expect(run).rejects.toThrow(
      `asked for protocolVersion ${revision} (--protocol), the server answered 2026-07-28, a revision this wirecheck does not know`,
    );
  }
}, 120_000);

test('a server answering a protocolVersion that is no date ("latest") to every client fails requested-revision under a later --protocol, and only that', async () => {
  for (const revision of ['2025-06-18', '2025-11-25'] as const) {
    const result = await runAgainst(
      at(notARevisionAlways(), revision),
      { only: INITIALIZE_CHECKS },
      quickSuite,
    );
    expect(statusById(result), revision).toEqual({
      'tool-server.initialize.result-shape': 'pass',
      'tool-server.initialize.protocol-version': 'skip',
      'tool-server.initialize.requested-revision': 'fail',
      // Asked for 1999-01-01 it offers "latest", which is no protocol version (MCP's are dates),
      // and so no version to ask for again.
      'tool-server.initialize.unsupported-version': 'fail',
      'tool-server.initialize.supported-version-echoed': 'skip',
    });
    const check = result.checks.find((c) => c.id === 'tool-server.initialize.requested-revision');
    expect(check?.message).toContain(
      `asked for ${revision} (--protocol), the server answered protocolVersion "latest": it does not speak ${revision}`,
    );
  }
}, 120_000);

test("without --protocol (the spec's 2024-11-05) the newer server fails protocol-version, and requested-revision does not apply", async () => {
  const result = await runAgainst(newerAlways(), { only: INITIALIZE_CHECKS }, quickSuite);
  expect(statusById(result)).toEqual({
    'tool-server.initialize.result-shape': 'pass',
    'tool-server.initialize.protocol-version': 'fail',
    'tool-server.initialize.requested-revision': 'skip',
    'tool-server.initialize.unsupported-version': 'pass',
    'tool-server.initialize.supported-version-echoed': 'pass',
  });
}, 120_000);
