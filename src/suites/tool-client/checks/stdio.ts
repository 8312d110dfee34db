import { type Check, CheckFailure, show } from '../../../harness/check.js';
import { firstDifference } from '../../messages-client/compare.js';
import { NON_JSON_BANNER as BANNER, type ToolClientCtx } from '../context.js';
import { evidenceOf, mockResultOf } from '../expect.js';
import { describeToolClientRun } from '../output.js';
import { CASE_BUDGET_MS, idOf } from './common.js';

const NON_JSON_CLAUSE =
  'Tool server, stdio transport: stdout carries nothing but protocol messages; Errors: non-JSON text on stdout in stdio mode: client parser fails and the connection is terminated at once';

/** Checks of the stdio transport only: a server that breaks the stdout rule. */
export const stdioChecks: Check<ToolClientCtx>[] = [
  {
    id: idOf('stdio', 'non-json-stdout.no-wrong-result'),
    clause: NON_JSON_CLAUSE,
    description:
      "A non-JSON line on the server's stdout never makes the client print a wrong result or hang (it fails, or at worst prints the true result).",
    level: 'must',
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx) {
      const result = await ctx.shared.nonJsonStdout();
      const { outcome } = result;
      if (outcome.type === 'hung') {
        throw new CheckFailure(
          `after a non-JSON line the client hung (${describeToolClientRun(result.run)})`,
          'the client ends, with an error',
          outcome.reason,
          evidenceOf(result, 'non-JSON stdout'),
        );
      }
      if (outcome.type === 'printed') {
        const difference = firstDifference(mockResultOf(result), outcome.value);
        if (difference !== undefined) {
          throw new CheckFailure(
            `after a non-JSON line the client printed a wrong result (${difference})`,
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
    timeoutMs: CASE_BUDGET_MS,
    async run(ctx) {
      const result = await ctx.shared.nonJsonStdout();
      const { outcome } = result;
      if (outcome.type !== 'error') {
        throw new CheckFailure(
          `the client did not fail on the non-JSON line (${describeToolClientRun(result.run)})`,
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
          'the error does not name the offending line',
          `a message quoting ${JSON.stringify(BANNER)} or saying which line is not JSON`,
          outcome.message,
          evidenceOf(result, 'non-JSON stdout'),
        );
      }
    },
  },
];
