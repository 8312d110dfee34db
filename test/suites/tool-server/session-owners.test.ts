import { describe, expect, test, vi } from 'vitest';
import { type CheckEnv, HarnessBug } from '../../../src/harness/check.js';
import type { Channel } from '../../../src/suites/tool-server/channel.js';
import type { ToolServerCtx } from '../../../src/suites/tool-server/context.js';
import { SessionOwners } from '../../../src/suites/tool-server/session-owners.js';
import { toolServerSuite } from '../../../src/suites/tool-server/suite.js';

// Who opened each session, and when it is closed: a check's own when the check ends, a shared
// value's when making it failed or when closeShared is asked.

function harness(selected?: ReadonlySet<string>) {
  const open = new Set<Channel>();
  const closed: string[] = [];
  const owners = new SessionOwners(async (c) => {
    if (!open.delete(c)) return false;
    closed.push(c.peer.label);
    return true;
  }, selected);
  /** A session opened now, under whoever runs. */
  const session = async (label: string): Promise<Channel> => {
    // Opened after an await, as a real session is: ownership must follow the async chain.
    await Promise.resolve();
    const channel = { peer: { label } } as unknown as Channel;
    open.add(channel);
    owners.opened(channel);
    return channel;
  };
  const labels = () => [...open].map((c) => c.peer.label);
  /** What a check's own close does: the session leaves the suite's registry. */
  const closeByHand = (channel: Channel) => open.delete(channel);
  return { owners, session, closed, labels, closeByHand };
}

describe('SessionOwners', () => {
  test("a check's sessions are closed when it returns, and when it throws", async () => {
    const { owners, session, labels } = harness();
    await owners.asCheck('check', new AbortController().signal, async () => {
      await session('a');
      await session('b');
    });
    expect(labels()).toEqual([]);
    await expect(
      owners.asCheck('check', new AbortController().signal, async () => {
        await session('c');
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(labels()).toEqual([]);
  });

  test("a check's sessions are closed at once when its signal aborts, though its body still runs", async () => {
    const { owners, session, labels } = harness();
    const controller = new AbortController();
    let finish = () => {};
    const body = owners.asCheck('check', controller.signal, async () => {
      await session('slow');
      await new Promise<void>((resolve) => {
        finish = resolve;
      });
      await session('after-abort');
    });
    await vi.waitFor(() => expect(labels()).toEqual(['slow']));
    controller.abort();
    await vi.waitFor(() => expect(labels()).toEqual([]));
    finish();
    await body;
    expect(labels()).toEqual([]);
  });

  test('a shared value made within a check keeps its sessions past the check, and a failed one closes them', async () => {
    const { owners, session, labels, closed } = harness();
    await owners.asCheck('check', new AbortController().signal, async () => {
      await session('own');
      await owners.asShared(async () => {
        await session('observer');
        await session('observer-2');
      });
    });
    expect(labels()).toEqual(['observer', 'observer-2']);
    await expect(
      owners.asShared(async () => {
        await session('first');
        throw new Error('the second was refused');
      }),
    ).rejects.toThrow('the second was refused');
    expect(labels()).toEqual(['observer', 'observer-2']);
    expect(closed).toEqual(['own', 'first']);
  });

  test('releaseDone closes the sessions of a shared value once every user it names ended (none that ended before it was made is waited for), and says whether it closed any', async () => {
    const { owners, session, labels, closeByHand } = harness();
    const signal = new AbortController().signal;
    await owners.asCheck('a', signal, async () => {});
    const users = ['a', 'b', 'c'];
    await owners.asCheck('b', signal, () => owners.asShared(() => session('observer'), users));
    await owners.asShared(() => session('unnamed'));
    // Closed by its own make once used: when its user ended, nothing is left to release.
    await owners.asShared(async () => closeByHand(await session('used')), ['other']);
    await owners.asCheck('other', signal, async () => {});
    expect(await owners.releaseDone()).toBe(false);
    expect(labels()).toEqual(['observer', 'unnamed']);
    await owners.asCheck('c', signal, async () => {});
    // Ended, but kept as evidence until a refusal asks for the room.
    expect(labels()).toEqual(['observer', 'unnamed']);
    expect(await owners.releaseDone()).toBe(true);
    expect(labels()).toEqual(['unnamed']);
    expect(await owners.releaseDone()).toBe(false);
  });

  test('a named user the run did not select (--only, a shard) is not waited for', async () => {
    const { owners, session, labels } = harness(new Set(['a', 'later']));
    const signal = new AbortController().signal;
    await owners.asCheck('a', signal, () => owners.asShared(() => session('observer'), ['a', 'b']));
    // 'b' never runs: with 'a' ended, the room may go.
    expect(await owners.releaseDone()).toBe(true);
    expect(labels()).toEqual([]);
    const all = harness();
    await all.owners.asCheck('a', signal, () =>
      all.owners.asShared(() => all.session('observer'), ['a', 'b']),
    );
    expect(await all.owners.releaseDone()).toBe(false);
    expect(all.labels()).toEqual(['observer']);
  });

  test('assertNamed throws for a check that uses a shared value not naming it, and passes its users and the suite itself', async () => {
    const { owners } = harness();
    const signal = new AbortController().signal;
    const users = ['a', 'b'];
    await owners.asCheck('b', signal, async () => owners.assertNamed('foreign-posts', users));
    await expect(
      owners.asCheck('c', signal, async () => owners.assertNamed('foreign-posts', users)),
    ).rejects.toThrow(
      new HarnessBug(
        'the check c uses the shared value "foreign-posts", whose list of users does not name it (it names a, b)',
      ),
    );
    // Outside a check (the preflight), or while a shared value is made, there is no asker.
    owners.assertNamed('foreign-posts', users);
    await owners.asCheck('c', signal, () => owners.asShared(async () => owners.assertNamed('x', users)));
  });

  test('closeShared closes what shared values opened, but the session it keeps and those no part owns', async () => {
    const { owners, session, labels } = harness();
    await session('idle');
    const main = await owners.asShared(() => session('main-2'));
    await owners.asShared(async () => session('malformed'));
    await owners.closeShared(main);
    expect(labels()).toEqual(['idle', 'main-2']);
  });

  test('a retired shared session is closed once every check and shared value that used it ended; at once when none uses it', async () => {
    const { owners, session, labels } = harness();
    const signal = new AbortController().signal;
    const main = await owners.asShared(() => session('main-1'));
    let finishA = () => {};
    const a = owners.asCheck('a', signal, async () => {
      owners.uses(main);
      await new Promise<void>((resolve) => {
        finishA = resolve;
      });
    });
    await owners.asCheck('b', signal, async () => owners.uses(main));
    // A shared value made on it still uses it while it is made.
    let finishValue = () => {};
    const value = owners.asShared(async () => {
      owners.uses(main);
      await new Promise<void>((resolve) => {
        finishValue = resolve;
      });
    });
    await owners.retire(main);
    expect(labels()).toEqual(['main-1']);
    finishA();
    await a;
    expect(labels()).toEqual(['main-1']);
    finishValue();
    await value;
    expect(labels()).toEqual([]);
    // One nobody uses goes at once, and only once.
    const idle = await owners.asShared(() => session('main-2'));
    await owners.retire(idle);
    expect(labels()).toEqual([]);
    await owners.closeShared(undefined);
    expect(labels()).toEqual([]);
  });
});

describe('the tool-server suite', () => {
  test('runs every check under ownSessions, with its id and signal', async () => {
    const signal = new AbortController().signal;
    const ownSessions = vi.fn(async (_id: string, _signal: AbortSignal) => {});
    const ctx = { ownSessions } as unknown as ToolServerCtx;
    const env = { signal } as unknown as CheckEnv;
    for (const check of toolServerSuite.checks) await check.run(ctx, env);
    expect(ownSessions).toHaveBeenCalledTimes(toolServerSuite.checks.length);
    expect(ownSessions.mock.calls.map(([id]) => id)).toEqual(toolServerSuite.checks.map((c) => c.id));
    expect(ownSessions.mock.calls.every(([, s]) => s === signal)).toBe(true);
  });
});
