import { expect, test } from 'vitest';
import type { ProtocolRevision } from '../../../src/protocol/mcp/index.js';
import type { ToolServerTarget } from '../../../src/suites/tool-server/index.js';
import { quickSuite, runAgainst, serverScript, statusById, stdioTarget } from './helpers.js';

// initialize.requested-revision judges a run with --protocol only, so the broken-server case list
// (no --protocol) cannot hold its failing server. A server answering another revision wirecheck
// knows cannot be tested as the one asked for at all (revisions.test.ts); one answering a revision
// later than any wirecheck knows is left to this check.

const at = (target: ToolServerTarget, protocol: ProtocolRevision): ToolServerTarget => ({
  ...target,
  protocol,
});
const newerAlways = () => stdioTarget(`${serverScript('newer-revision-always')} --transport stdio`, 'all');

const INITIALIZE_CHECKS = [
  'tool-server.initialize.result-shape',
  'tool-server.initialize.protocol-version',
  'tool-server.initialize.requested-revision',
  'tool-server.initialize.unsupported-version',
  'tool-server.initialize.supported-version-echoed',
];

test('a server answering its own newer revision (2026-07-28) to every client fails requested-revision under a later --protocol, and only that', async () => {
  for (const revision of ['2025-06-18', '2025-11-25'] as const) {
    const result = await runAgainst(at(newerAlways(), revision), { only: INITIALIZE_CHECKS }, quickSuite);
    expect(statusById(result), revision).toEqual({
      'tool-server.initialize.result-shape': 'pass',
      'tool-server.initialize.protocol-version': 'skip',
      'tool-server.initialize.requested-revision': 'fail',
      // Asked for 1999-01-01 it offers 2026-07-28, and asked for that it answers it: no fault there.
      'tool-server.initialize.unsupported-version': 'pass',
      'tool-server.initialize.supported-version-echoed': 'pass',
    });
    const check = result.checks.find((c) => c.id === 'tool-server.initialize.requested-revision');
    expect(check?.message).toContain(
      `asked for ${revision} (--protocol), the server answered protocolVersion "2026-07-28": it does not speak ${revision}`,
    );
  }
}, 120_000);

test('under 2024-11-05 the same server fails protocol-version, and requested-revision does not apply', async () => {
  const result = await runAgainst(at(newerAlways(), '2024-11-05'), { only: INITIALIZE_CHECKS }, quickSuite);
  expect(statusById(result)).toEqual({
    'tool-server.initialize.result-shape': 'pass',
    'tool-server.initialize.protocol-version': 'fail',
    'tool-server.initialize.requested-revision': 'skip',
    'tool-server.initialize.unsupported-version': 'pass',
    'tool-server.initialize.supported-version-echoed': 'pass',
  });
}, 120_000);
