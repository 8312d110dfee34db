import { NotExercised } from '../../../harness/check.js';
import type { Channel } from '../channel.js';
import { InitializeUnanswered, SessionRefused, type ToolServerCtx } from '../context.js';
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
 * What a check that asked for `count` sessions at once throws when some did not open (`failed`,
 * not refusals). initialize left unanswered in such a burst judges nothing: the burst may have
 * slowed the server itself (25 sessions at once on a bridge that starts a process for each
 * took 4.6 s), and JSON-RPC sets no deadline. But where a session of the check (`sessions`)
 * received a reply to a request it did not send, the replies went astray: that, and any other
 * failure, is the check's verdict.
 */
export function openFailure(
  failed: readonly unknown[],
  count: number,
  sessions: readonly Channel[],
): unknown {
  const fault = failed.find((e) => !(e instanceof InitializeUnanswered));
  const astray = sessions.some((s) => s.peer.strayReplies.some((r) => r.id !== null));
  if (fault !== undefined || count <= 1 || astray) return fault ?? failed[0];
  return new NotExercised(
    `${failed.length} of ${count} sessions opened at once got no answer to initialize (the first: ${(failed[0] as Error).message}): a server slow to start that many sessions at once looks the same (JSON-RPC sets no deadline), so routing was not judged`,
  );
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
  if (failed.length > 0) throw openFailure(failed, count, sessions);
  throw new NotExercised(
    `the server refused new sessions for capacity (${refusal?.message ?? ''}) with ${sessions.length} of the ${count} asked for open: routing needs 2 sessions at once to judge`,
  );
}
