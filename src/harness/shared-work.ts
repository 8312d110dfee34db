import type { CheckEnv } from './check.js';

/**
 * Work that several checks judge, done once per suite run (a runner session): the first to
 * ask does it on its own job slot; a check that asks while it is under way waits through
 * `idle` (CheckEnv.idle), its slot lent to the next check, since it adds no process of its own.
 */
export class SharedWork {
  readonly #started = new Map<string, Promise<unknown>>();
  readonly #pending = new Set<string>();

  /** `make`'s result for `key`, made now if nobody asked before. */
  get<T>(key: string, make: () => Promise<T>, env?: Pick<CheckEnv, 'idle'>): Promise<T> {
    const known = this.#started.get(key) as Promise<T> | undefined;
    if (known !== undefined) return this.#pending.has(key) && env !== undefined ? env.idle(known) : known;
    const made = make();
    this.#started.set(key, made);
    this.#pending.add(key);
    const settled = () => this.#pending.delete(key);
    // A background session may fail before any check asks for it; the check that asks reports it.
    made.then(settled, settled);
    return made;
  }

  /** Everything made so far, settled or not (a suite's close waits for all of it). */
  all(): Promise<unknown>[] {
    return [...this.#started.values()];
  }
}
