import { describe, expect, test } from 'vitest';
import {
  DEFAULT_REVISION,
  isBefore,
  isProtocolRevision,
  LATEST_REVISION,
  looksLikeVersion,
  negotiatedVersion,
  PROTOCOL_REVISIONS,
  REVISION_CHANGES,
  revisionsFrom,
  revisionsUntil,
} from '../../../src/protocol/mcp/index.js';
import { SUITES } from '../../../src/suites/registry.js';

describe('MCP revisions', () => {
  test('four revisions, oldest first; the default is the spec one, the latest the newest', () => {
    expect(PROTOCOL_REVISIONS).toEqual(['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25']);
    expect(DEFAULT_REVISION).toBe('2024-11-05');
    expect(LATEST_REVISION).toBe(PROTOCOL_REVISIONS.at(-1));
    expect([...PROTOCOL_REVISIONS].sort()).toEqual([...PROTOCOL_REVISIONS]);
  });

  test('the official SDK supports every revision wirecheck offers, and its latest is ours', async () => {
    const sdk = await import('@modelcontextprotocol/sdk/types.js');
    for (const r of PROTOCOL_REVISIONS) expect(sdk.SUPPORTED_PROTOCOL_VERSIONS).toContain(r);
    expect(sdk.LATEST_PROTOCOL_VERSION).toBe(LATEST_REVISION);
  });

  test('ranges and order', () => {
    expect(revisionsFrom('2025-06-18')).toEqual(['2025-06-18', '2025-11-25']);
    expect(revisionsUntil('2025-03-26')).toEqual(['2024-11-05', '2025-03-26']);
    expect(isBefore('2024-11-05', '2025-03-26')).toBe(true);
    expect(isBefore('2025-11-25', '2025-11-25')).toBe(false);
    expect(isProtocolRevision('2025-06-18')).toBe(true);
    expect(isProtocolRevision('2024-10-07')).toBe(false);
    expect(isProtocolRevision(20250618)).toBe(false);
  });

  test('negotiation: the version asked for when supported, else the latest supported', () => {
    for (const r of PROTOCOL_REVISIONS) expect(negotiatedVersion(r)).toBe(r);
    expect(negotiatedVersion('1999-01-01')).toBe('2025-11-25');
    expect(negotiatedVersion('2999-01-01')).toBe('2025-11-25');
    expect(negotiatedVersion('')).toBe('2025-11-25');
    expect(negotiatedVersion('2025-11-25', ['2024-11-05', '2025-03-26'])).toBe('2025-03-26');
    expect(() => negotiatedVersion('x', [])).toThrow(TypeError);
  });

  test('a version looks like a date', () => {
    expect(looksLikeVersion('2025-06-18')).toBe(true);
    expect(looksLikeVersion('1.0.0')).toBe(false);
    expect(looksLikeVersion(undefined)).toBe(false);
  });
});

describe('what changed between revisions (revision-changes.ts)', () => {
  const ids = new Map(SUITES.flatMap(({ suite }) => suite.checks.map((c) => [c.id, c] as const)));

  test('every change names a later revision, a source on modelcontextprotocol.io and its text', () => {
    const seen = new Set<string>();
    for (const c of REVISION_CHANGES) {
      expect(seen.has(c.id), c.id).toBe(false);
      seen.add(c.id);
      expect(c.id.startsWith(`${c.revision}.`), c.id).toBe(true);
      expect(c.revision).not.toBe(DEFAULT_REVISION);
      expect(c.source.url).toMatch(/^https:\/\/modelcontextprotocol\.io\/specification\/20\d\d-\d\d-\d\d\//);
      expect(c.source.url).toContain(c.revision);
      expect(c.source.text.length).toBeGreaterThan(20);
    }
  });

  test('every check a change names is registered, and a change no check covers says why', () => {
    for (const c of REVISION_CHANGES) {
      for (const id of c.checks) expect(ids.has(id), `${c.id}: ${id}`).toBe(true);
      if (c.checks.length === 0) expect(c.uncovered, c.id).toBeDefined();
    }
  });

  test('every check limited to some revisions is named by a change, or judges the --protocol version itself', () => {
    const named = new Set(REVISION_CHANGES.flatMap((c) => c.checks));
    // The version checks: the spec's fixed 2024-11-05, and the revision of --protocol asked and offered.
    const versionChecks = /\.initialize\.(protocol-version|offers-revision)$/;
    const limited = [...ids.values()].filter((c) => c.revisions !== undefined).map((c) => c.id);
    expect(limited.filter((id) => !named.has(id) && !versionChecks.test(id))).toEqual([]);
  });

  test('every revision list of a check is known revisions, oldest first, none empty', () => {
    for (const c of ids.values()) {
      if (c.revisions === undefined) continue;
      expect(c.revisions.length, c.id).toBeGreaterThan(0);
      expect(c.revisions.every(isProtocolRevision), c.id).toBe(true);
      expect([...c.revisions].sort(), c.id).toEqual([...c.revisions]);
    }
  });
});
