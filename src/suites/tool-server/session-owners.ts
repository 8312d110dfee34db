import { AsyncLocalStorage } from 'node:async_hooks';
import { HarnessBug } from '../../harness/check.js';
import type { Channel } from './channel.js';

/** The sessions one part of the suite opened: one check's, or one shared value's. */
interface Owner {
  readonly channels: Set<Channel>;
  /** A check's: its id. */
  readonly check?: string;
  /** A shared value's: the checks that use it and have not ended yet, when they were named. */
  readonly users?: Set<string>;
}

/**
 * Who opened each session, so that none outlives its use: a server that bounds its sessions
 * (503 past a cap) would otherwise refuse the later checks the sessions an earlier one left
 * open, on a path its author did not close by hand (a refusal, a failure, a timeout).
 *
 * A session opened while a check runs is the check's, closed when the check ends or its time
 * runs out. One opened while a shared value is made (ctx.shared, the main session) is the
 * suite's: the checks that share it use it later, so it stays open, unless the making failed
 * and nobody can use it. Once every check that uses it ended (when they were named), a session
 * refused for capacity may have its room (`releaseDone`); until then it stays open as evidence
 * (a reply misrouted to it shows there). Sessions opened outside both (the preflight's, the
 * idle stream) are the suite's too. Ownership follows the async call chain (AsyncLocalStorage),
 * so it holds through every helper a check calls, whichever opens the session.
 */
export class SessionOwners {
  private readonly current = new AsyncLocalStorage<Owner>();
  private readonly sharedOwners: Owner[] = [];
  private readonly ended = new Set<string>();
  /** Shared sessions handed out (the main one), with the checks and shared values using them. */
  private readonly users = new Map<Channel, Set<Owner>>();
  /** Shared sessions replaced, to be closed once nobody uses them. */
  private readonly retired = new Set<Channel>();

  /**
   * `close` closes a session the suite still holds (true) and does nothing for one already
   * closed (false). `selected` names the checks this run will run, when it is known: a named
   * user it leaves out (`--only`, a shard) never ends, so it is not waited for.
   */
  constructor(
    private readonly close: (channel: Channel) => Promise<boolean>,
    private readonly selected?: ReadonlySet<string>,
  ) {}

  /** Record a session just opened under whoever is running now. */
  opened(channel: Channel): void {
    this.current.getStore()?.channels.add(channel);
  }

  /**
   * Run the body of the check `id`; what it opened is closed when it settles, or at once when
   * `signal` aborts.
   */
  async asCheck<T>(id: string, signal: AbortSignal, body: () => Promise<T>): Promise<T> {
    const owner: Owner = { channels: new Set(), check: id };
    const release = () => this.closeAll(owner);
    signal.addEventListener('abort', release, { once: true });
    try {
      return await this.current.run(owner, body);
    } finally {
      signal.removeEventListener('abort', release);
      await release();
      this.checkEnded(id);
      await this.stoppedUsing(owner);
    }
  }

  /** The check or shared value running now uses the shared session `channel`. */
  uses(channel: Channel): void {
    const owner = this.current.getStore();
    if (owner === undefined) return;
    const users = this.users.get(channel) ?? new Set<Owner>();
    this.users.set(channel, users);
    users.add(owner);
  }

  /**
   * Close the shared session `channel`, replaced by another, once every check and shared value
   * that used it has ended: one of them may still be waiting on it.
   */
  async retire(channel: Channel): Promise<void> {
    this.retired.add(channel);
    if ((this.users.get(channel)?.size ?? 0) === 0) await this.closeRetired(channel);
  }

  private async stoppedUsing(owner: Owner): Promise<void> {
    const idle: Channel[] = [];
    for (const [channel, users] of this.users) {
      if (users.delete(owner) && users.size === 0 && this.retired.has(channel)) idle.push(channel);
    }
    await Promise.all(idle.map((c) => this.closeRetired(c)));
  }

  private async closeRetired(channel: Channel): Promise<void> {
    this.retired.delete(channel);
    this.users.delete(channel);
    for (const owner of this.sharedOwners) owner.channels.delete(channel);
    await this.close(channel);
  }

  /**
   * Throws when the check running now (in this async call chain) is not among `usedBy`, the
   * users the shared value `key` names: once those ended, its sessions may be closed under it
   * (false 404s): a bug of wirecheck, which stops the run as a harness error (HarnessBug).
   */
  assertNamed(key: string, usedBy: readonly string[]): void {
    const asker = this.current.getStore()?.check;
    if (asker === undefined || usedBy.includes(asker)) return;
    throw new HarnessBug(
      `the check ${asker} uses the shared value "${key}", whose list of users does not name it (it names ${usedBy.join(', ')})`,
    );
  }

  private checkEnded(id: string): void {
    this.ended.add(id);
    for (const owner of this.sharedOwners) owner.users?.delete(id);
  }

  /**
   * Close the sessions of the shared values every named user of which has ended: a session was
   * refused for capacity, and no check will use them again. Whether it closed any.
   */
  async releaseDone(): Promise<boolean> {
    return this.closeOwners(this.sharedOwners.filter((o) => o.users?.size === 0));
  }

  /**
   * Make a shared value; what it opened stays open for the checks that share it, or is closed
   * if making it failed. `usedBy` names every check that uses it: once all of them ended,
   * `releaseDone` may close its sessions.
   */
  async asShared<T>(make: () => Promise<T>, usedBy?: readonly string[]): Promise<T> {
    const users =
      usedBy === undefined
        ? undefined
        : new Set(usedBy.filter((id) => this.willRun(id) && !this.ended.has(id)));
    const owner: Owner = { channels: new Set(), ...(users === undefined ? {} : { users }) };
    this.sharedOwners.push(owner);
    try {
      return await this.current.run(owner, make);
    } catch (e) {
      await this.closeAll(owner);
      throw e;
    } finally {
      await this.stoppedUsing(owner);
    }
  }

  /** Close the sessions shared values opened, but `keep`: once no check will use them again. */
  async closeShared(keep: Channel | undefined): Promise<void> {
    await this.closeOwners(this.sharedOwners, keep);
  }

  private willRun(id: string): boolean {
    return this.selected === undefined || this.selected.has(id);
  }

  /** Whether any of their sessions was still open. */
  private async closeOwners(owners: readonly Owner[], keep?: Channel): Promise<boolean> {
    return (await Promise.all(owners.map((owner) => this.closeAll(owner, keep)))).includes(true);
  }

  /** Whether any of them was still open. */
  private async closeAll(owner: Owner, keep?: Channel): Promise<boolean> {
    const closing = [...owner.channels].filter((c) => c !== keep);
    for (const c of closing) owner.channels.delete(c);
    return (await Promise.all(closing.map((c) => this.close(c)))).includes(true);
  }
}
