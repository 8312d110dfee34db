import { NotExercised } from '../../harness/check.js';
import type { CaseResult, ToolClientCtx } from './context.js';
import { describeCase, expectPrintedResult, mockResultOf, resultDifferences } from './expect.js';

/**
 * Throws NotExercised when the case did not end with the call's result printed and the
 * plain call over the same transport (the basic case) did not either: the client cannot
 * finish a call at all, which result.printed judges, so the case says nothing about its own
 * rule. Called before a check fails a client for not finishing a call under its condition.
 */
export async function excuseIfPlainCallFails(
  ctx: ToolClientCtx,
  result: CaseResult,
  what: string,
): Promise<void> {
  if (result.outcome.type === 'printed') return;
  const plain = await ctx.shared.basic(result.transport);
  if (plain.outcome.type === 'printed') return;
  throw new NotExercised(
    `${what}: the client does not finish the plain call over ${result.transport} either (${describeCase(plain)}), which tool-client.${result.transport}.result.printed judges`,
  );
}

/**
 * The case's condition did not break the call: the client printed the result the mock
 * returned, or, when it prints another one for the plain call too (the basic case, which
 * result.printed judges), a result all the same: one wrong result fails one check.
 */
export async function expectResultUnbroken(
  ctx: ToolClientCtx,
  result: CaseResult,
  what: string,
): Promise<void> {
  const { outcome } = result;
  if (outcome.type === 'printed' && resultDifferences(mockResultOf(result), outcome.value).length > 0) {
    const plain = await ctx.shared.basic(result.transport);
    if (
      plain.outcome.type === 'printed' &&
      resultDifferences(mockResultOf(plain), plain.outcome.value).length > 0
    ) {
      return;
    }
  }
  expectPrintedResult(result, what);
}
