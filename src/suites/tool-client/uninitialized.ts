import { type Check, CheckFailure, NotExercised, TargetGone } from '../../harness/check.js';
import { clientRequests, lifecycleViolation, type ToolJournalEntry } from '../../mocks/tools/index.js';
import { METHODS } from '../../protocol/mcp/index.js';
import type { CaseResult, SharedCases, ToolClientCtx } from './context.js';
import type { ToolTransport } from './target.js';

/**
 * Why a session never got past the lifecycle: the client sent no initialize request, and
 * what it sent instead breaks the rule that initialization comes first (a `server/discover`
 * of a later draft, refused by a server that wants a session, and then nothing). Undefined
 * when the client sent initialize, or sent nothing the lifecycle rule can judge.
 */
export function neverInitialized(journal: readonly ToolJournalEntry[]): string | undefined {
  if (clientRequests(journal, METHODS.initialize).length > 0) return undefined;
  const violation = lifecycleViolation(journal);
  return violation === undefined ? undefined : `${violation.reason}, and no initialize followed`;
}

/**
 * The lifecycle check judges what a client sends before initialize: never excused.
 * (initialize-awaited is not exercised by a case without initialize: it has nothing to excuse.)
 */
const JUDGES_THE_LIFECYCLE = /\.lifecycle\.initialized-first$/;

/**
 * A check of what follows initialize, excused when its sessions never got there. A failure
 * of the check becomes "not exercised" when every case it ran never sent initialize (and
 * broke the lifecycle instead), and the transport's basic case (the preflight's) did the
 * same: then `<transport>.lifecycle.initialized-first` fails the client for that, once, and
 * the rules of what comes later, which nothing reached, are not blamed. A check whose cases
 * include one that did initialize is judged as it is.
 */
export function excusedBeforeInitialize(check: Check<ToolClientCtx>): Check<ToolClientCtx> {
  if (JUDGES_THE_LIFECYCLE.test(check.id)) return check;
  return {
    ...check,
    async run(ctx, env) {
      const used: CaseResult[] = [];
      try {
        return await check.run(recordingCases(ctx, used), env);
      } catch (error) {
        if (!(error instanceof CheckFailure) || error instanceof TargetGone || used.length === 0) throw error;
        const reasons = used.map((r) => neverInitialized(r.journal));
        if (reasons.some((r) => r === undefined)) throw error;
        const transports = [...new Set(used.map((r) => r.transport))];
        const basics = await Promise.all(transports.map((t) => ctx.shared.basic(t)));
        if (basics.some((b) => neverInitialized(b.journal) === undefined)) throw error;
        throw new NotExercised(
          `the client never sent initialize over ${transports.join(', ')} (${reasons[0]}): ${lifecycleIds(transports)} judges that, and nothing after initialize was reached (${error.message})`,
        );
      }
    },
  };
}

function lifecycleIds(transports: readonly ToolTransport[]): string {
  return transports.map((t) => `tool-client.${t}.lifecycle.initialized-first`).join(', ');
}

/** `ctx` with every case a check obtains recorded in `used`. */
function recordingCases(ctx: ToolClientCtx, used: CaseResult[]): ToolClientCtx {
  const record = async (pending: Promise<CaseResult>) => {
    const result = await pending;
    used.push(result);
    return result;
  };
  const shared: SharedCases = {
    basic: (t) => record(ctx.shared.basic(t)),
    ping: (t) => record(ctx.shared.ping(t)),
    slow: (t) => record(ctx.shared.slow(t)),
    nonJsonStdout: () => record(ctx.shared.nonJsonStdout()),
  };
  return { ...ctx, runCase: (spec) => record(ctx.runCase(spec)), shared };
}
