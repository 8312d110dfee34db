import { NotExercised } from '../../harness/check.js';
import type { CaseResult, ToolClientCtx } from './context.js';
import { describeCase } from './expect.js';

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
