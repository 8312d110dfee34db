import { describe, expect, test } from 'vitest';
import type { CheckEnv } from '../../../src/harness/check.js';
import type { ToolServerCtx } from '../../../src/suites/tool-server/context.js';
import { toolServerSuite } from '../../../src/suites/tool-server/suite.js';

// A shared value that names the checks using it gives its sessions' room away once they all
// ended (session-owners.ts): a check that uses it but is not named could then send on a session
// already ended. Every check is run against a context that records which shared values it asks
// for, and stops it there. (A run asserts it too, SessionOwners.assertNamed, whatever the check
// called first; this test sees it without a server.)

class Stop extends Error {}

/** The shared values (key, named users) the check asks for first, with the transport given. */
async function sharedAskedBy(
  id: string,
  transport: 'stdio' | 'sse' | 'http',
): Promise<{ key: string; usedBy: readonly string[] | undefined }[]> {
  const asked: { key: string; usedBy: readonly string[] | undefined }[] = [];
  const values: Record<string, unknown> = {
    transport,
    target: { kind: transport, url: 'http://127.0.0.1:9/', command: 'true', protocol: undefined },
    offeredVersion: transport === 'http' ? '2025-03-26' : '2024-11-05',
    negotiatedVersion: transport === 'http' ? '2025-03-26' : '2024-11-05',
    replyMs: 10,
    firstReplyMs: 10,
    httpMs: 10,
    options: {},
    shared: (key: string, _make: unknown, usedBy?: readonly string[]) => {
      asked.push({ key, usedBy });
      throw new Stop();
    },
    ownSessions: (_id: string, _signal: AbortSignal, body: () => Promise<void>) => body(),
  };
  const ctx = new Proxy(values, {
    get: (target, name: string) =>
      name in target
        ? target[name]
        : () => {
            throw new Stop();
          },
  }) as unknown as ToolServerCtx;
  const check = toolServerSuite.checks.find((c) => c.id === id)!;
  const env = { seed: 1, runs: 1, full: false, signal: new AbortController().signal } as unknown as CheckEnv;
  await check.run(ctx, env).catch(() => {});
  return asked;
}

describe('shared values that name their users', () => {
  test('every check that asks for one is among the users it names', async () => {
    const named = new Set<string>();
    for (const check of toolServerSuite.checks) {
      for (const transport of ['sse', 'http'] as const) {
        for (const { key, usedBy } of await sharedAskedBy(check.id, transport)) {
          if (usedBy === undefined) continue;
          named.add(`${key}: ${check.id}`);
          expect(usedBy, `${check.id} asks for ${key}`).toContain(check.id);
        }
      }
    }
    // The test saw the users it guards: the foreign posts' four and the exercised session's.
    const users = (key: string) => [...named].filter((n) => n.startsWith(`${key}: `)).length;
    expect(users('foreign-posts')).toBe(4);
    expect(users('http-exercised')).toBe(10);
  });
});
