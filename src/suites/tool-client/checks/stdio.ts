import { type Check, CheckFailure, NotExercised, show } from '../../../harness/check.js';
import { STDIO_ENDS, type ToolJournalEntry } from '../../../mocks/tools/index.js';
import { describeDifferences } from '../../../protocol/compare.js';
import { NON_JSON_BANNER as BANNER, type CaseResult, type ToolClientCtx } from '../context.js';
import {
  describeCase,
  evidenceOf,
  expectCallSent,
  expectTraffic,
  mockResultOf,
  resultDifferences,
} from '../expect.js';
import { CASE_BUDGET_MS, idOf } from './common.js';

const NON_JSON_CLAUSE =
  'Tool server, stdio transport: stdout carries nothing but protocol messages; Errors: non-JSON text on stdout in stdio mode: client parser fails and the connection is terminated at once';

/** Checks of the stdio transport only: a server that breaks the stdout rule, and shutdown. */
export const stdioChecks: Check<ToolClientCtx>[] = [
  {
    id: idOf('stdio', 'non-json-stdout.no-wrong-result'),
    clause: NON_JSON_CLAUSE,
    description:
      "A non-JSON line on the server's stdout never makes the client print a wrong result or hang (it fails, or at worst prints the true result).",
    level: 'must',
    basis: 'spec',
    rule: "The spec: a non-JSON line on a stdio server's stdout makes the client's parser fail and the connection end at once; whatever the client does then, it must not present that line (or anything else) as the tool's result, nor hang. Every tool client.",
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const result = await ctx.shared.nonJsonStdout(env);
      // The mock writes the line just before the tools/call reply: no call, no line to judge.
      expectCallSent(result, 'non-JSON stdout');
      const { outcome } = result;
      if (outcome.type === 'hung') {
        throw new CheckFailure(
          `after a non-JSON line the client hung (${describeCase(result)})`,
          'the client ends, with an error',
          outcome.reason,
          evidenceOf(result, 'non-JSON stdout'),
        );
      }
      if (outcome.type === 'printed') {
        const found = resultDifferences(mockResultOf(result), outcome.value);
        if (found.length > 0) {
          throw new CheckFailure(
            `after a non-JSON line the client printed a wrong result: ${describeDifferences(found)}`,
            'an error (or the true result)',
            show(outcome.value),
            evidenceOf(result, 'non-JSON stdout'),
          );
        }
      }
    },
  },
  {
    id: idOf('stdio', 'non-json-stdout.error'),
    clause: `${NON_JSON_CLAUSE} (how the client words it is not shown, hence should)`,
    description:
      'A non-JSON line on the server\'s stdout ends the client with exit non-zero and {"error":{"message"}} naming the line.',
    level: 'should',
    basis: 'spec-reference',
    rule: "The spec describes the client's parser failing and the connection terminated at once on a non-JSON line; how a client reports it is not shown, and the official SDK reads on, so ending with an error naming the line is a warning.",
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx, env) {
      const result = await ctx.shared.nonJsonStdout(env);
      // The mock writes the line just before the tools/call reply: no call, no line to judge.
      expectCallSent(result, 'non-JSON stdout');
      const { outcome } = result;
      if (outcome.type !== 'error') {
        throw new CheckFailure(
          `the client did not fail on the non-JSON line (${describeCase(result)})`,
          'exit non-zero and {"error":{"message":...}} naming the line',
          outcome.type === 'printed' ? `exit 0 with ${show(outcome.value)}` : outcome.reason,
          evidenceOf(result, 'non-JSON stdout'),
        );
      }
      // Naming the line: its text (or a good part of it) or its position.
      const named =
        outcome.message.includes(BANNER.slice(0, 24)) ||
        /\bline\b|not (valid )?json|parse/i.test(outcome.message);
      if (!named) {
        throw new CheckFailure(
          `the error does not name the offending line: ${JSON.stringify(outcome.message)}`,
          `a message quoting ${JSON.stringify(BANNER)} or saying which line is not JSON`,
          outcome.message,
          evidenceOf(result, 'non-JSON stdout'),
        );
      }
    },
  },
  {
    id: idOf('stdio', 'shutdown-order'),
    clause:
      'MCP 2024-11-05 lifecycle, shutdown over stdio (not shown in the spec): close the input stream first, then wait, then SIGTERM',
    description:
      "The client ends the stdio session by closing the server's stdin first; it does not send SIGTERM, or kill the server, while the server may still exit on its own.",
    level: 'should',
    basis: 'protocol-should',
    rule: "MCP 2024-11-05: to shut down a stdio server the client SHOULD close the server's input stream, wait for it to exit, and send SIGTERM only if it does not exit in reasonable time (SIGKILL only after that); a server killed first loses what it was writing.",
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx) {
      const result = await ctx.shared.basic('stdio');
      expectTraffic(result, 'shutdown');
      const signalledByWirecheck = wirecheckEnded(result);
      if (signalledByWirecheck !== undefined) {
        throw new NotExercised(
          `${signalledByWirecheck}, so a signal the server got may be wirecheck's, not the client's (${describeCase(result)})`,
        );
      }
      const ends = firstEnds(result.journal);
      if (ends.length === 0)
        throw new NotExercised('the mock recorded neither the end of its stdin nor a signal');
      const early = ends.find((e) => SIGNALLED_FIRST.has(e.text));
      if (early !== undefined) {
        throw new CheckFailure(
          SIGNALLED_FIRST.get(early.text) ?? early.text,
          "close the server's stdin, wait for its exit, then signal",
          `${early.session}: ${early.text}`,
          evidenceOf(result, 'shutdown', early.seq),
        );
      }
    },
  },
];

/** Ends that show the client signalled or killed its server before it could exit on its own: what each says. */
const SIGNALLED_FIRST: ReadonlyMap<string, string> = new Map([
  [STDIO_ENDS.termWhileRunning, 'the client sent the server SIGTERM before closing its stdin'],
  [
    STDIO_ENDS.killedWhileRunning,
    'the client killed the server without closing its stdin or sending SIGTERM first',
  ],
  [
    STDIO_ENDS.termAfterStdinEnd,
    'the client sent the server SIGTERM right after closing its stdin, without waiting for it to exit',
  ],
  [
    STDIO_ENDS.killedAfterStdinEnd,
    'the client killed the server right after closing its stdin, without waiting for it to exit',
  ],
]);

/** The first end the mock journaled of each server process the client started. */
function firstEnds(journal: readonly ToolJournalEntry[]): ToolJournalEntry[] {
  const ends = new Map<string, ToolJournalEntry>();
  for (const e of journal) {
    if (e.kind === 'closed' && e.direction === 'received' && !ends.has(e.session)) ends.set(e.session, e);
  }
  return [...ends.values()];
}

/**
 * Why wirecheck itself signalled the client's process group, the server in it: the case ran
 * out (SIGTERM, then SIGKILL) or the client flooded the mock (SIGKILL); undefined when the
 * client ended on its own.
 */
function wirecheckEnded(result: CaseResult): string | undefined {
  if (result.stoppedAfterMessages !== undefined)
    return `wirecheck stopped the client after ${result.stoppedAfterMessages} messages`;
  if (result.run.timedOut) return "the client ran past the case's time and wirecheck ended it";
  return undefined;
}
