import type { FastifyReply, FastifyRequest } from 'fastify';
import { ConnectionWatch, executePlan, type StreamEnd } from './execute-plan.js';
import type { FaultPlan } from './faults.js';
import type { JournalEntry } from './journal.js';
import { cutOnOwnFailure } from './own-failure.js';
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
  let watch: ConnectionWatch | undefined;
  let end: StreamEnd;
  try {
    watch = new ConnectionWatch(res, entry);
    end = await replay(state, request, res, entry, result, faults, watch);
  } catch (e) {
    end = cutOnOwnFailure(request, res, entry, 'replay the recorded response', e);
  }
  if (end === 'client-aborted') entry.abortedAtFrame = watch?.goneAtFrame ?? entry.framesWritten;
  entry.outcome = end === 'client-aborted' && state.closing ? 'server-closed' : end;
  entry.clientAborted = entry.outcome === 'client-aborted';
  entry.endedAtMono = performance.now();
  state.journal.changed(entry);
}

/** The recorded headers at their recorded time, then the plan of planReplay; how the writing ended. */
async function replay(
  state: MockState,
  request: FastifyRequest,
  res: FastifyReply['raw'],
  entry: JournalEntry,
  result: Extract<Reply, { kind: 'recorded' }>,
  faults: FaultPlan | undefined,
  watch: ConnectionWatch,
): Promise<StreamEnd> {
  res.socket?.setNoDelay(true);
  const seed = mixSeed(faults?.seed ?? state.seed, entry.seq);
  entry.seed = seed;
  const plan = planReplay(result.response, faults, seed, { ...result.replay, requestId: request.id });
  if (plan.headersDelayMs >= 1) await watch.sleep(plan.headersDelayMs);
  if (watch.gone) return 'client-aborted';
  res.writeHead(result.response.status, plan.headers);
  res.flushHeaders();
  entry.status = result.response.status;
  state.journal.changed(entry);
  return executePlan(res, plan.steps, watch, entry);
}
