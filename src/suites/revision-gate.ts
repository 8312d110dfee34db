import { type Check, CheckSkipped } from '../harness/check.js';
import type { ProtocolRevision } from '../protocol/mcp/index.js';

/**
 * The checks with their revision applicability enforced: a check whose `revisions` do not
 * hold the run's revision is skipped as not applicable, saying which revisions it is for.
 * The check keeps its id, level and the rest, so the catalogue shows it unchanged.
 */
export function gatedByRevision<Ctx>(
  checks: readonly Check<Ctx>[],
  revisionOf: (ctx: Ctx) => ProtocolRevision,
): Check<Ctx>[] {
  return checks.map((check) => {
    const revisions = check.revisions;
    if (revisions === undefined) return check;
    return {
      ...check,
      async run(ctx, env) {
        const revision = revisionOf(ctx);
        if (!revisions.includes(revision)) {
          throw new CheckSkipped(
            `the rule holds in MCP ${describeRevisions(revisions)} only; this run speaks ${revision} (--protocol names the revision; absent, the transport's default)`,
          );
        }
        return check.run(ctx, env);
      },
    };
  });
}

/** `2025-06-18 and 2025-11-25`, or `2024-11-05 to 2025-06-18` for a longer run. */
export function describeRevisions(revisions: readonly string[]): string {
  if (revisions.length === 0) return 'no revision';
  if (revisions.length === 1) return revisions[0]!;
  if (revisions.length === 2) return `${revisions[0]} and ${revisions[1]}`;
  return `${revisions[0]} to ${revisions.at(-1)}`;
}
