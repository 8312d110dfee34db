import { fileURLToPath } from 'node:url';
import type { SuiteResult } from '../../../src/harness/results.js';
import { type RunOptions, runSuite, shellQuote } from '../../../src/harness/run-suite.js';
import { agentSuite } from '../../../src/suites/agent/index.js';

/** Seed of every suite run in these tests, so that they are reproducible. */
export const SEED = 20261121;

/** `node <file next to this one>` as a target command. */
export function nodeCommand(relativePath: string): string {
  const file = fileURLToPath(new URL(relativePath, import.meta.url));
  return `${shellQuote(process.execPath)} ${shellQuote(file)}`;
}

export function runAgainst(agent: string, options: RunOptions = {}): Promise<SuiteResult> {
  return runSuite(agentSuite, { agent }, { seed: SEED, runs: 5, ...options });
}

/** `id: status: message` for every check that did not pass, for readable assertion diffs. */
export function notPassed(result: SuiteResult): string[] {
  return result.checks.filter((c) => c.status !== 'pass').map((c) => `${c.id}: ${c.status}: ${c.message}`);
}

export { statusById } from '../../broken-verdicts.js';
