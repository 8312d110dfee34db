import { fileURLToPath } from 'node:url';
import type { SuiteResult } from '../../../src/harness/results.js';
import { type RunOptions, runSuite, shellQuote } from '../../../src/harness/run-suite.js';
import { messagesClientSuite } from '../../../src/suites/messages-client/index.js';
import { buildDist, distIsFresh } from '../../global-setup.js';

/** Seed of every suite run in these tests, so that they are reproducible. */
export const SEED = 20261121;

/**
 * Target commands run the built code (dist/); test/global-setup.ts builds it once per test
 * run, and this builds it only when it is missing or older than src/ (a run without the
 * global setup, e.g. a single file from an editor).
 */
export function ensureBuilt(): void {
  if (!distIsFresh()) buildDist();
}

/** `node <file next to this one>` as a target command. */
export function nodeCommand(relativePath: string): string {
  const file = fileURLToPath(new URL(relativePath, import.meta.url));
  return `${shellQuote(process.execPath)} ${shellQuote(file)}`;
}

export function runAgainst(client: string, options: RunOptions = {}): Promise<SuiteResult> {
  return runSuite(messagesClientSuite, { client }, { seed: SEED, runs: 5, ...options });
}

/** `id: status` for every check that did not pass, with its message, for readable assertion diffs. */
export function notPassed(result: SuiteResult): string[] {
  return result.checks
    .filter((c) => c.status === 'fail' || c.status === 'warn')
    .map((c) => `${c.id}: ${c.status}: ${c.message}`);
}

export { statusById } from '../../broken-verdicts.js';
