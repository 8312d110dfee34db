import { NotExercised } from '../../../harness/check.js';
import { SessionRefused, type ToolServerCtx } from '../context.js';
import type { SseChannel } from '../sse-channel.js';

/** Sessions opened at once, settled: a server may bound how many it holds. */
export interface SettledOpens<T> {
  /** Each session in the order asked for; undefined where it did not open. */
  opened: (T | undefined)[];
  /** The first refusal for capacity (503, 429), which is no fault of the server. */
  refusal: SessionRefused | undefined;
  /** Every other reason a session did not open. */
  failed: unknown[];
}

export async function settleOpens<T>(opens: readonly Promise<T>[]): Promise<SettledOpens<T>> {
  const settled = await Promise.allSettled(opens);
  const rejected = settled.flatMap((o) => (o.status === 'rejected' ? [o.reason as unknown] : []));
  return {
    opened: settled.map((o) => (o.status === 'fulfilled' ? o.value : undefined)),
    refusal: rejected.find((e): e is SessionRefused => e instanceof SessionRefused),
    failed: rejected.filter((e) => !(e instanceof SessionRefused)),
  };
}

/**
 * Up to `count` SSE sessions opened at once (initialized), labelled s1, s2, ...: those the
 * server refuses for capacity are left out. Routing needs two at once: with fewer the check
 * is not exercised. Any other failure to open one is thrown, once the opened ones are closed.
 */
export async function openWithinCapacity(ctx: ToolServerCtx, count: number): Promise<SseChannel[]> {
  const { opened, refusal, failed } = await settleOpens(
    Array.from({ length: count }, (_, i) => ctx.openSession(`s${i + 1}`, true)),
  );
  const sessions = opened.filter((s): s is SseChannel => s !== undefined);
  if (failed.length === 0 && (refusal === undefined || sessions.length >= 2)) return sessions;
  await Promise.all(sessions.map((s) => s.close()));
  if (failed.length > 0) throw failed[0];
  throw new NotExercised(
    `the server refused new sessions for capacity (${refusal?.message ?? ''}) with ${sessions.length} of the ${count} asked for open: routing needs 2 sessions at once to judge`,
  );
}
