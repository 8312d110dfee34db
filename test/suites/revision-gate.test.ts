import { describe, expect, test } from 'vitest';
import { type Check, CheckSkipped } from '../../src/harness/check.js';
import { UsageError } from '../../src/harness/errors.js';
import { defaultRevisionFor, transportRevisionMismatch } from '../../src/protocol/mcp/index.js';
import { describeRevisions, gatedByRevision } from '../../src/suites/revision-gate.js';
import { protocolArgs, protocolOption } from '../../src/suites/target-options.js';
import {
  describeTarget as clientDescribeTarget,
  revisionOf as clientRevisionOf,
  toolClientTargetFromOptions,
} from '../../src/suites/tool-client/target.js';
import {
  describeTarget,
  targetArgs,
  toolServerTargetFromOptions,
} from '../../src/suites/tool-server/target.js';
import { checkEnv } from '../check-env.js';

type Ctx = { revision: '2024-11-05' | '2025-06-18' };
const env = checkEnv();

function check(revisions?: readonly string[]): Check<Ctx> & { ran: number } {
  const c = {
    id: 's.c',
    clause: 'c',
    description: 'd',
    level: 'must' as const,
    basis: 'protocol-must' as const,
    rule: 'A rule of some revisions.',
    ran: 0,
    ...(revisions === undefined ? {} : { revisions }),
    async run() {
      c.ran += 1;
    },
  };
  return c;
}

describe('revision applicability', () => {
  test('a check of other revisions is skipped as not applicable, naming its revisions and the run one', async () => {
    const only = check(['2025-06-18', '2025-11-25']);
    const [gated] = gatedByRevision([only], (ctx) => ctx.revision);
    const run = gated!.run({ revision: '2024-11-05' }, env);
    await expect(run).rejects.toBeInstanceOf(CheckSkipped);
    await expect(run).rejects.toThrow(/2025-06-18 and 2025-11-25 only; this run speaks 2024-11-05/);
    expect(only.ran).toBe(0);
    await gated!.run({ revision: '2025-06-18' }, env);
    expect(only.ran).toBe(1);
  });

  test('a check without revisions runs in every revision, and keeps its identity', async () => {
    const all = check();
    const [gated] = gatedByRevision([all], (ctx) => ctx.revision);
    expect(gated).toBe(all);
    const limited = check(['2025-06-18']);
    const [g] = gatedByRevision([limited], (ctx) => ctx.revision);
    expect({ ...g, run: undefined }).toEqual({ ...limited, run: undefined });
  });

  test('revision ranges read as text', () => {
    expect(describeRevisions(['2025-03-26'])).toBe('2025-03-26');
    expect(describeRevisions(['2024-11-05', '2025-03-26', '2025-06-18'])).toBe('2024-11-05 to 2025-06-18');
  });
});

describe('--protocol', () => {
  test('a known revision is taken; absent is the default; another value is a usage error listing the known ones', () => {
    expect(protocolOption({ protocol: '2025-06-18' })).toBe('2025-06-18');
    expect(protocolOption({})).toBeUndefined();
    expect(() => protocolOption({ protocol: '2026-07-28' })).toThrow(UsageError);
    expect(() => protocolOption({ protocol: 'latest' })).toThrow(
      /known: 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25/,
    );
  });

  test('both tool suites take it into their target, and the reproduce line gives it back', () => {
    const server = toolServerTargetFromOptions({ stdio: 'srv', protocol: '2025-11-25' });
    expect(server).toEqual({ kind: 'stdio', command: 'srv', protocol: '2025-11-25' });
    expect(targetArgs(server)).toEqual(['--stdio', 'srv', '--protocol', '2025-11-25']);
    expect(describeTarget(server)).toBe('stdio: srv (MCP 2025-11-25)');
    expect(toolClientTargetFromOptions({ client: 'c', protocol: '2025-03-26' })).toEqual({
      client: 'c',
      protocol: '2025-03-26',
    });
    expect(() => toolClientTargetFromOptions({ client: 'c', protocol: '1999-01-01' })).toThrow(UsageError);
    expect(protocolArgs('2024-11-05')).toEqual([]);
    expect(protocolArgs(undefined)).toEqual([]);
  });
});

describe('the revision of a transport', () => {
  test('unnamed, a run speaks 2024-11-05 over stdio and SSE and 2025-03-26, the first with it, over Streamable HTTP', () => {
    expect(defaultRevisionFor('stdio')).toBe('2024-11-05');
    expect(defaultRevisionFor('sse')).toBe('2024-11-05');
    expect(defaultRevisionFor('http')).toBe('2025-03-26');
    const client = { client: 'c', transports: ['stdio', 'sse', 'http'] as const };
    expect(clientRevisionOf(client, 'stdio')).toBe('2024-11-05');
    expect(clientRevisionOf(client, 'http')).toBe('2025-03-26');
    expect(clientRevisionOf({ ...client, protocol: '2025-06-18' }, 'stdio')).toBe('2025-06-18');
    expect(clientDescribeTarget(client)).toBe('c (MCP 2025-03-26 over http; over stdio, sse, http)');
  });

  test('--protocol 2024-11-05 with Streamable HTTP is a usage error that names the revisions that have it', () => {
    expect(transportRevisionMismatch('http', '2024-11-05')).toMatch(
      /has no Streamable HTTP transport .*2025-03-26, 2025-06-18, 2025-11-25/,
    );
    for (const r of ['2025-03-26', '2025-06-18', '2025-11-25'] as const) {
      expect(transportRevisionMismatch('http', r)).toBeUndefined();
    }
    expect(transportRevisionMismatch('sse', '2025-11-25')).toBeUndefined();
    expect(() =>
      toolServerTargetFromOptions({ http: 'http://127.0.0.1:1/mcp', protocol: '2024-11-05' }),
    ).toThrow(/--http with --protocol 2024-11-05: MCP 2024-11-05 has no Streamable HTTP transport/);
    expect(
      toolServerTargetFromOptions({ sse: 'http://127.0.0.1:1/sse', protocol: '2024-11-05' }),
    ).toMatchObject({
      kind: 'sse',
    });
    expect(() =>
      toolClientTargetFromOptions({ client: 'c', protocol: '2024-11-05', transports: 'stdio,http' }),
    ).toThrow(/--transports http with --protocol 2024-11-05/);
    expect(toolClientTargetFromOptions({ client: 'c', transports: 'stdio,http' })).toEqual({
      client: 'c',
      transports: ['stdio', 'http'],
    });
  });
});
