import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SuiteResult } from '../harness/results.js';
import { WIRECHECK_BIN } from '../package-root.js';
import { type ChildServer, startChild } from './child-server.js';
import { type BenchRow, tidy } from './rows.js';

/** Both client suites' targets name the client's command in `client`; the relay takes its place. */
const withRelay = (cold: unknown, relay: string): unknown => ({ ...(cold as object), client: relay });

/**
 * The suites whose reference `wirecheck serve warm` keeps loaded (docs/warm-targets.md), and
 * how a relay command takes the place of the reference's command in its target: the rest of
 * the target (the tool client's transports) stays as the cold run had it, so both runs judge
 * the same cases.
 */
const WARM_SUITES: Readonly<Record<string, (cold: unknown, relay: string) => unknown>> = {
  'messages-client': withRelay,
  'tool-client': withRelay,
};

export const WARM_LABEL = ' kept warm (serve warm)';

/** A reference served by `wirecheck serve warm`, and the target that reaches it through the relay. */
export interface WarmReference {
  readonly target: unknown;
  /** The relay command the server printed, for the log. */
  readonly relay: string;
  close(): Promise<void>;
}

/** whyNotWarm's answer for a suite whose reference is never kept warm (nothing worth logging). */
export const NOT_KEPT_WARM = 'serve warm does not keep this reference';

/** Why the suite has no warm run here (`perl`: findPerl()'s answer), or undefined when it can have one. */
export function whyNotWarm(suite: string, perl: string | undefined): string | undefined {
  if (WARM_SUITES[suite] === undefined) return NOT_KEPT_WARM;
  if (perl === undefined) return 'no perl on PATH (the warm relay is a perl script)';
  return undefined;
}

/**
 * Starts `wirecheck serve warm <suite>` as users do (the CLI, a socket in a fresh private
 * directory) and builds the suite's target from `cold` with the command it prints. Closing
 * sends SIGTERM (the server removes its socket), then ends its group, then the directory.
 */
export async function startWarmReference(suite: string, cold: unknown): Promise<WarmReference> {
  const toTarget = WARM_SUITES[suite];
  if (toTarget === undefined) throw new Error(`serve warm does not keep the reference of ${suite}`);
  const dir = await mkdtemp(join(tmpdir(), 'wc-bench-warm-'));
  let server: ChildServer;
  try {
    server = await startChild([
      process.execPath,
      WIRECHECK_BIN,
      'serve',
      'warm',
      suite,
      '--socket',
      join(dir, 'warm.sock'),
    ]);
  } catch (e) {
    await rm(dir, { recursive: true, force: true });
    throw e;
  }
  return {
    target: toTarget(cold, server.hello),
    relay: server.hello,
    close: async () => {
      try {
        process.kill(server.pid, 'SIGTERM');
      } catch {
        // Gone already.
      }
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Each check whose status differs between two runs of one suite at one seed, as
 * `id: cold pass, warm fail`: a warm target is the same client, so any difference is a bug
 * of the warm kit (or a verdict that depends on the start-up time, which is as bad).
 */
export function verdictDifferences(
  cold: Pick<SuiteResult, 'checks'>,
  warm: Pick<SuiteResult, 'checks'>,
): string[] {
  const warmStatus = new Map(warm.checks.map((c) => [c.id, c.status]));
  const differences = cold.checks
    .filter((c) => warmStatus.get(c.id) !== c.status)
    .map((c) => `${c.id}: cold ${c.status}, warm ${warmStatus.get(c.id) ?? 'not run'}`);
  const coldIds = new Set(cold.checks.map((c) => c.id));
  for (const c of warm.checks)
    if (!coldIds.has(c.id)) differences.push(`${c.id}: cold not run, warm ${c.status}`);
  return differences;
}

/** What kept warm must gain at least: the suite's wall time cold over warm (docs/warm-targets.md). */
export const WARM_SPEED_UP_GOAL = 2;

/**
 * The suite's wall time with its reference kept warm against the same suite cold, right
 * before, at the same seed and jobs; `ratio` is cold/warm (higher is better).
 */
export function warmRow(cold: SuiteResult, warm: SuiteResult, note: string | undefined): BenchRow {
  return {
    name: `suite ${cold.suite} against its reference, quick tier: wall time${WARM_LABEL} vs cold`,
    value: tidy(warm.durationMs),
    unit: 'ms',
    baseline: tidy(cold.durationMs),
    ratio: tidy(cold.durationMs / Math.max(1, warm.durationMs)),
    goal: WARM_SPEED_UP_GOAL,
    note: [`the same status for each of the ${cold.checks.length} checks`, note]
      .filter((n) => n !== undefined)
      .join('; '),
  };
}
