import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, test } from 'vitest';
import { UsageError } from '../../../src/harness/errors.js';
import type { SuiteResult } from '../../../src/harness/results.js';
import { type RunOptions, runSuite, shellQuote } from '../../../src/harness/run-suite.js';
import {
  PROTOCOL_REVISIONS,
  type ProtocolRevision,
  STREAMABLE_HTTP_REVISIONS,
} from '../../../src/protocol/mcp/index.js';
import { ensureBuilt, nodeCommand, notPassed, SEED, statusById, suite } from './helpers.js';

beforeAll(ensureBuilt, 120_000);

// --protocol on the tool-client suite: the mock servers answer the run's revision, and the
// checks of that revision judge the client. Both directions: the reference client and the
// official SDK's pass; a client that asks for an older revision than it speaks, or that
// names another version than the negotiated one after initialize, warns on exactly its check.

const BIN = fileURLToPath(new URL('../../../bin/wirecheck.js', import.meta.url));
const reference = (revision: ProtocolRevision) =>
  `${shellQuote(process.execPath)} ${shellQuote(BIN)} tool-client --protocol ${revision}`;

function run(client: string, protocol: ProtocolRevision, options: RunOptions = {}): Promise<SuiteResult> {
  return runSuite(suite, { client, protocol }, { seed: SEED, runs: 3, ...options });
}

const VERSION_CHECKS = ['stdio', 'sse']
  .flatMap((t) =>
    ['initialize.protocol-version', 'initialize.offers-revision', 'initialize.version-checked'].map(
      (c) => `tool-client.${t}.${c}`,
    ),
  )
  .concat('tool-client.sse.protocol-version-header');

describe('tool-client suite under each MCP revision', () => {
  test('the reference client passes the whole suite under 2025-11-25', async () => {
    const result = await run(reference('2025-11-25'), '2025-11-25');
    expect(notPassed(result)).toEqual([]);
    const status = statusById(result);
    expect(status['tool-client.stdio.initialize.offers-revision']).toBe('pass');
    expect(status['tool-client.stdio.initialize.protocol-version']).toBe('skip');
    expect(
      result.checks.find((c) => c.id === 'tool-client.stdio.initialize.protocol-version')?.skipKind,
    ).toBe('not-applicable');
  }, 240_000);

  for (const revision of PROTOCOL_REVISIONS) {
    test(`the reference client asking for ${revision} passes the version checks of ${revision}`, async () => {
      const result = await run(reference(revision), revision, { only: VERSION_CHECKS });
      expect(notPassed(result)).toEqual([]);
      expect(result.checks.filter((c) => c.status === 'pass').length).toBeGreaterThanOrEqual(4);
    }, 120_000);
  }

  test('over Streamable HTTP --protocol 2024-11-05, a revision without that transport, is refused before any client runs', async () => {
    const run = runSuite(
      suite,
      { client: reference('2024-11-05'), protocol: '2024-11-05', transports: ['http'] },
      { seed: SEED, runs: 3, only: ['tool-client.http.'] },
    );
    await expect(run).rejects.toThrow(UsageError);
    await expect(run).rejects.toThrow(/MCP 2024-11-05 has no Streamable HTTP transport/);
  });

  for (const revision of STREAMABLE_HTTP_REVISIONS) {
    test(`over Streamable HTTP the reference client with --protocol ${revision} passes every check of the transport`, async () => {
      const result = await runSuite(
        suite,
        { client: reference(revision), protocol: revision, transports: ['http'] },
        { seed: SEED, runs: 3, only: ['tool-client.http.'] },
      );
      expect(notPassed(result)).toEqual([]);
      const status = statusById(result);
      // The header rule is the negotiated revision's: 2025-06-18 and later.
      const header = revision >= '2025-06-18' ? 'pass' : 'skip';
      expect(status['tool-client.http.protocol-version-header']).toBe(header);
      expect(status['tool-client.http.protocol-version-header.negotiated']).toBe(header);
      expect(status['tool-client.http.result.printed']).toBe('pass');
      // The retry rule (SEP-1699) is 2025-11-25's.
      expect(status['tool-client.http.stream.retry-respected']).toBe(
        revision >= '2025-11-25' ? 'pass' : 'skip',
      );
    }, 120_000);
  }

  for (const revision of ['2025-06-18', '2025-11-25'] as const) {
    test(`the official SDK client passes the version checks of ${revision}, the header check included`, async () => {
      const result = await run(nodeCommand('./clients/mcp-sdk-client.mjs'), revision, {
        only: VERSION_CHECKS,
      });
      expect(notPassed(result)).toEqual([]);
      // The SDK asks for its latest (2025-11-25) and names the version the mock answered.
      expect(statusById(result)['tool-client.sse.protocol-version-header']).toBe('pass');
    }, 120_000);
  }

  for (const revision of ['2025-06-18', '2025-11-25'] as const) {
    test(`over Streamable HTTP the official SDK client passes the header checks of ${revision}`, async () => {
      const only = [
        'tool-client.http.protocol-version-header',
        'tool-client.http.protocol-version-header.negotiated',
      ];
      const result = await runSuite(
        suite,
        { client: nodeCommand('./clients/mcp-sdk-client.mjs'), protocol: revision, transports: ['http'] },
        { seed: SEED, runs: 3, only },
      );
      expect(statusById(result)).toEqual(Object.fromEntries(only.map((id) => [id, 'pass'])));
    }, 120_000);
  }

  test('over Streamable HTTP the official SDK client waits the retry of a dropped stream (2025-11-25)', async () => {
    const only = ['tool-client.http.stream.resumed', 'tool-client.http.stream.retry-respected'];
    const result = await runSuite(
      suite,
      { client: nodeCommand('./clients/mcp-sdk-client.mjs'), protocol: '2025-11-25', transports: ['http'] },
      { seed: SEED, runs: 3, only },
    );
    expect(statusById(result)).toEqual(Object.fromEntries(only.map((id) => [id, 'pass'])));
  }, 120_000);

  test('a conforming client of every revision passes; asking for an older revision than it speaks warns', async () => {
    const good = await run(`${nodeCommand('./clients/revisions.mjs')} 2025-06-18 negotiated`, '2025-06-18', {
      only: VERSION_CHECKS,
    });
    expect(notPassed(good)).toEqual([]);
    expect(statusById(good)['tool-client.sse.protocol-version-header']).toBe('pass');
    const old = await run(`${nodeCommand('./clients/revisions.mjs')} 2024-11-05 negotiated`, '2025-06-18', {
      only: VERSION_CHECKS,
    });
    expect(notPassed(old).map((l) => l.split(':')[0])).toEqual([
      'tool-client.stdio.initialize.offers-revision',
      'tool-client.sse.initialize.offers-revision',
    ]);
    expect(statusById(old)['tool-client.sse.initialize.offers-revision']).toBe('warn');
  }, 180_000);

  test('a client that names the version it asked for, not the negotiated one, warns on the header check only', async () => {
    const result = await run(`${nodeCommand('./clients/revisions.mjs')} 2025-11-25 requested`, '2025-06-18', {
      only: VERSION_CHECKS,
    });
    expect(notPassed(result)).toEqual([
      expect.stringMatching(
        /^tool-client\.sse\.protocol-version-header: warn: the server answered protocolVersion 2025-06-18 in initialize, and a later POST carried MCP-Protocol-Version: 2025-11-25/,
      ),
    ]);
  }, 120_000);

  test('under 2024-11-05 the same client fails the spec version check, and the later-revision checks do not apply', async () => {
    const result = await run(`${nodeCommand('./clients/revisions.mjs')} 2025-11-25 requested`, '2024-11-05', {
      only: VERSION_CHECKS,
    });
    const status = statusById(result);
    expect(status['tool-client.stdio.initialize.protocol-version']).toBe('fail');
    expect(status['tool-client.stdio.initialize.offers-revision']).toBe('skip');
    expect(status['tool-client.sse.protocol-version-header']).toBe('skip');
  }, 120_000);
});
