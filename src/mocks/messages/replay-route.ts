import type { FastifyReply, FastifyRequest } from 'fastify';
import { ConnectionWatch, executePlan, type StreamEnd } from './execute-plan.js';
import type { FaultPlan } from './faults.js';
import type { JournalEntry } from './journal.js';
import { mixSeed } from './random.js';
import { planReplay } from './replay-plan.js';
import type { Reply } from './reply.js';
import type { MockState } from './state.js';

/**
 * Serve a recorded response on a hijacked reply: the recorded headers at their recorded
 * time, then the plan of planReplay. Nagle is off, so each recorded chunk leaves as its
 * own segment when the recording spaced them.
 */
export async function serveRecorded(
  state: MockState,
  request: FastifyRequest,
  reply: FastifyReply,
  entry: JournalEntry,
  result: Extract<Reply, { kind: 'recorded' }>,
  faults: FaultPlan | undefined,
): Promise<void> {
  const res = reply.raw;
  res.socket?.setNoDelay(true);
  const seed = mixSeed(faults?.seed ?? state.seed, entry.seq);
  entry.seed = seed;
  const plan = planReplay(result.response, faults, seed, { ...result.replay, requestId: request.id });
  const watch = new ConnectionWatch(res, entry);
  let end: StreamEnd;
  if (plan.headersDelayMs >= 1) await watch.sleep(plan.headersDelayMs);
  if (watch.gone) end = 'client-aborted';
  else {
    entry.status = result.response.status;
    res.writeHead(result.response.status, plan.headers);
    res.flushHeaders();
    state.journal.changed(entry);
    try {
      end = await executePlan(res, plan.steps, watch, entry);
    } catch (e) {
      request.log.error(e, 'mock messages replay failed');
      entry.streamError = `the mock could not replay the recorded response: ${(e as Error).message}`;
      res.destroy();
      end = 'disconnected';
    }
  }
  if (end === 'client-aborted') entry.abortedAtFrame = watch.goneAtFrame ?? entry.framesWritten;
  entry.outcome = end === 'client-aborted' && state.closing ? 'server-closed' : end;
  entry.clientAborted = entry.outcome === 'client-aborted';
  entry.endedAtMono = performance.now();
  state.journal.changed(entry);
}
