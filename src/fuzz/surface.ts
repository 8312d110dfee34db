import type fc from 'fast-check';

/**
 * One input boundary of the system that bad input must not break: the inputs to throw at
 * it and the rule it must keep for every one of them. A new surface is one file under
 * `surfaces/` plus one line in `surfaces.ts`.
 */
export interface FuzzSurface<T = unknown> {
  /** Stable name, used by `--surface` and in the reproduce line. */
  readonly name: string;
  /** One line: what is fuzzed and what must hold. */
  readonly description: string;
  /** Prepare the surface (start a server...) and return what to check. Once per run. */
  open(): FuzzTarget<T> | Promise<FuzzTarget<T>>;
}

export interface FuzzTarget<T> {
  /** The inputs, valid and broken alike. Values should print readably (fc.toStringMethod). */
  readonly arbitrary: fc.Arbitrary<T>;
  /** Returns when the surface kept its rule for `input`; throws, saying what broke, when not. */
  check(input: T): void | Promise<void>;
  /** Release what `open` started. */
  close?(): void | Promise<void>;
}

/** A broken rule, as a check reports it: what was expected and what happened. */
export class FuzzViolation extends Error {
  override readonly name = 'FuzzViolation';
}

/** Type-erase a surface for the registry. */
export function surface<T>(s: FuzzSurface<T>): FuzzSurface<unknown> {
  return s as FuzzSurface<unknown>;
}
