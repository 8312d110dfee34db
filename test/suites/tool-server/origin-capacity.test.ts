import { describe, expect, test } from 'vitest';
import { startStreamableToolServer } from '../../../src/servers/tools/index.js';
import { httpTarget, quickSuite, runAgainst } from './helpers.js';

// tool-server.http.origin-refused asks for a new session with a foreign Origin. A server that
// bounds its sessions and is at capacity refuses that (503, 429) whatever the Origin, so the
// refusal shows nothing about Origin validation: asked again a few times, then not exercised.
// The same initialize without the Origin is the control: a refusal it shares is not about the
// Origin either. A correct server (403) keeps passing, and one that validates nothing still fails
// once it has room.

const ID = 'tool-server.http.origin-refused';

async function verdict(name: string) {
  const result = await runAgainst(await httpTarget(`streamable-${name}`), { only: [ID] }, quickSuite);
  return result.checks.find((c) => c.id === ID)!;
}

describe(`${ID} against servers at capacity`, () => {
  for (const [server, status] of [
    ['full-any-origin', 503],
    ['full-429-any-origin', 429],
    ['full-capacity-first', 503],
  ] as const) {
    test(`a server at capacity answering ${status} to every new session (${server}) is not judged: not exercised, naming the status`, async () => {
      const check = await verdict(server);
      expect(check, check.message).toMatchObject({ status: 'skip', skipKind: 'not-exercised' });
      expect(check.message).toMatch(new RegExp(`was answered HTTP ${status} .*3 times`));
    }, 60_000);
  }

  test('a refusal the same initialize without the Origin gets too (400 at capacity) is not about the Origin: not exercised', async () => {
    const check = await verdict('full-400-any-origin');
    expect(check, check.message).toMatchObject({ status: 'skip', skipKind: 'not-exercised' });
    expect(check.message).toMatch(/without an Origin was answered HTTP 400 too/);
  }, 60_000);

  test('a server briefly at capacity (503 once, Retry-After: 1) is asked again: 403 then passes', async () => {
    const check = await verdict('busy-once');
    expect(check.status, check.message).toBe('pass');
  }, 60_000);

  test('a server briefly at capacity that accepts any Origin is asked again and fails: it served the foreign Origin', async () => {
    const check = await verdict('busy-once-any-origin');
    expect(check.status, check.message).toBe('fail');
    expect(check.message).toMatch(/was answered HTTP 200 .*does not validate Origin/);
  }, 60_000);

  test('a conforming server (403 for a foreign Origin, the control served) passes; so does the reference under 2025-11-25', async () => {
    expect((await verdict('conforming')).status).toBe('pass');
    const reference = await startStreamableToolServer({ port: 0 });
    try {
      const result = await runAgainst(
        { kind: 'http', url: reference.url, protocol: '2025-11-25' },
        { only: [ID] },
        quickSuite,
      );
      const check = result.checks.find((c) => c.id === ID)!;
      expect(check.status, check.message).toBe('pass');
    } finally {
      await reference.close();
    }
  }, 60_000);
});
