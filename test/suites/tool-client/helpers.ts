import { fileURLToPath } from 'node:url';
import type { SuiteResult } from '../../../src/harness/results.js';
import { type RunOptions, runSuite, shellQuote } from '../../../src/harness/run-suite.js';
import type { ProtocolRevision } from '../../../src/protocol/mcp/index.js';
import { createToolClientSuite, type ToolTransport } from '../../../src/suites/tool-client/index.js';
import { buildDist, distIsFresh } from '../../global-setup.js';

/** Seed of every suite run in these tests, so that they are reproducible. */
export const SEED = 20261122;

/**
 * The suite with 3 runs per property and a per-run budget that still holds on a loaded
 * 2-core machine (a client that hangs costs this much).
 */
export const suite = createToolClientSuite({ caseTimeoutMs: 20_000, maxCommandRuns: 3 });

/** The stdio mock runs the built CLI (dist/): build it when missing or older than src/. */
export function ensureBuilt(): void {
  if (!distIsFresh()) buildDist();
}

/** `node <file next to this one>` as a target command. */
export function nodeCommand(relativePath: string): string {
  const file = fileURLToPath(new URL(relativePath, import.meta.url));
  return `${shellQuote(process.execPath)} ${shellQuote(file)}`;
}

/** Run the suite against `client`, over the default transports or the ones given, under `protocol`. */
export function runAgainst(
  client: string,
  options: RunOptions = {},
  transports?: readonly ToolTransport[],
  protocol?: ProtocolRevision,
): Promise<SuiteResult> {
  return runSuite(
    suite,
    { client, ...(transports && { transports }), ...(protocol && { protocol }) },
    { seed: SEED, runs: 3, ...options },
  );
}

/** `id: status: message` for every check that did not pass, for readable assertion diffs. */
export function notPassed(result: SuiteResult): string[] {
  return result.checks
    .filter((c) => c.status === 'fail' || c.status === 'warn')
    .map((c) => `${c.id}: ${c.status}: ${c.message}`);
}

export { statusById } from '../../broken-verdicts.js';
