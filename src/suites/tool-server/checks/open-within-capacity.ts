import { NotExercised } from '../../../harness/check.js';
import { SessionRefused, type ToolServerCtx } from '../context.js';
import type { SseChannel } from '../sse-channel.js';

/**
 * Up to `count` SSE sessions opened at once (initialized), labelled s1, s2, ...: those the
 * server refuses for capacity (503, 429) are left out, as a server may bound how many it
 * holds. Routing needs two at once: with fewer the check is not exercised. Any other failure
 * to open one is thrown, once the opened ones are closed.
 */
export async function openWithinCapacity(ctx: ToolServerCtx, count: number): Promise<SseChannel[]> {
  const settled = await Promise.allSettled(
    Array.from({ length: count }, (_, i) => ctx.openSession(`s${i + 1}`, true)),
  );
  const sessions = settled.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
  const failed = settled.find(
    (o): o is PromiseRejectedResult => o.status === 'rejected' && !(o.reason instanceof SessionRefused),
  );
  const refused = settled.find((o): o is PromiseRejectedResult => o.status === 'rejected');
  if (failed === undefined && (refused === undefined || sessions.length >= 2)) return sessions;
  await Promise.all(sessions.map((s) => s.close()));
  if (failed !== undefined) throw failed.reason;
  throw new NotExercised(
    `the server refused new sessions for capacity (${refused === undefined ? '' : (refused.reason as Error).message}) with ${sessions.length} of the ${count} asked for open: routing needs 2 sessions at once to judge`,
  );
}
