import type { Suite } from '../harness/check.js';
import { agentSuiteEntry } from './agent/entry.js';
import { messagesClientSuiteEntry } from './messages-client/entry.js';
import { messagesServiceSuiteEntry } from './messages-service/entry.js';
import { runnerSuiteEntry } from './runner/entry.js';
import { toolClientSuiteEntry } from './tool-client/entry.js';
import { toolServerSuiteEntry } from './tool-server/entry.js';

/** A target option of a suite, as a commander option spec. */
export interface TargetOptionSpec {
  /** e.g. `--base-url <url>`; a flag shared by several suites must be spelled the same by each. */
  readonly flags: string;
  readonly description: string;
  /** The flag may be given more than once: targetFromOptions gets every value, in order, as a string[]. */
  readonly repeatable?: boolean;
}

/** A reference implementation started for `wirecheck all`. */
export interface RunningReference {
  readonly target: unknown;
  /** Printed once before the suite runs: how the reference was started differently here, and why. */
  readonly note?: string;
  close(): Promise<void>;
}

/** What the CLI needs to run a suite: the suite, its target options and its reference. */
export interface SuiteEntry {
  // biome-ignore lint/suspicious/noExplicitAny: entries of different suites share one list
  readonly suite: Suite<any, any>;
  readonly targetOptions: readonly TargetOptionSpec[];
  /**
   * Build the suite's target from the values of its own target options, keyed by
   * commander's camelCase attribute name (`--base-url` -> `baseUrl`); an option not given
   * is absent. Throws UsageError (src/harness/errors.ts, exit 2) when a required option is
   * missing or a value is invalid. No defaults are set on the command line: a suite applies
   * its own, since several suites may share a flag.
   */
  targetFromOptions(opts: Record<string, unknown>): unknown;
  /** Start the built-in reference implementation as a target (for `wirecheck all`). */
  reference?(): Promise<RunningReference>;
  /**
   * More targets `wirecheck all` runs the suite against after `reference`: the same reference
   * over its other transports (the tool-server suite: stdio and Streamable HTTP beside SSE).
   */
  readonly otherReferences?: readonly { readonly label: string; start(): Promise<RunningReference> }[];
}

/** Every suite the CLI knows, in the order `list` and `all` use. */
export const SUITES: SuiteEntry[] = [
  messagesServiceSuiteEntry,
  messagesClientSuiteEntry,
  runnerSuiteEntry,
  agentSuiteEntry,
  toolServerSuiteEntry,
  toolClientSuiteEntry,
];

export function findSuite(name: string): SuiteEntry | undefined {
  return SUITES.find((entry) => entry.suite.name === name);
}

export function suiteNames(): string[] {
  return SUITES.map((entry) => entry.suite.name);
}

/**
 * Add a suite at run time (tests, plugins). Returns the function that removes it again.
 * A name already registered is a programming error.
 */
export function registerSuite(entry: SuiteEntry): () => void {
  if (findSuite(entry.suite.name) !== undefined) {
    throw new Error(`a suite named ${entry.suite.name} is already registered`);
  }
  SUITES.push(entry);
  return () => {
    const i = SUITES.indexOf(entry);
    if (i >= 0) SUITES.splice(i, 1);
  };
}
