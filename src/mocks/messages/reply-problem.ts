import { RecordedResponse } from '../../fixtures/schema.js';
import { MessageShape } from '../../protocol/messages/index.js';
import type { Reply } from './reply.js';

/** What is wrong with a scenario's reply (a bug in the script), or undefined. */
export function replyProblem(result: Reply): string | undefined {
  if (result === null || typeof result !== 'object') return `no reply (${String(result)})`;
  if (result.kind === 'message') {
    const parsed = MessageShape.safeParse(result.message);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return `an invalid message: ${issue?.path.join('.') || '(root)'}: ${issue?.message}`;
    }
    return splitsProblem(result.splits);
  }
  if (result.kind === 'error') {
    const ok = Number.isInteger(result.status) && result.status >= 400 && result.status <= 599;
    return ok ? undefined : `an error reply with status ${result.status} (expected 400..599)`;
  }
  if (result.kind === 'raw')
    return Array.isArray(result.frames) ? rawFramesProblem(result.frames) : 'a raw reply without frames';
  if (result.kind === 'recorded') {
    const parsed = RecordedResponse.safeParse(result.response);
    if (parsed.success) return undefined;
    const issue = parsed.error.issues[0];
    return `an invalid recorded response: ${issue?.path.join('.') || '(root)'}: ${issue?.message}`;
  }
  return `a reply of unknown kind ${JSON.stringify((result as { kind?: unknown }).kind)}`;
}

/** The first frame of a raw reply that framesOfRaw cannot send, if any (it would cut the stream, or vanish). */
function rawFramesProblem(frames: readonly unknown[]): string | undefined {
  for (let i = 0; i < frames.length; i++) {
    const f = frames[i];
    if (typeof f === 'object' && f !== null) {
      const o = f as Record<string, unknown>;
      if (typeof o.type === 'string' || typeof o.comment === 'string') continue;
      if (typeof o.data === 'string' && (o.event === undefined || typeof o.event === 'string')) continue;
    }
    return `a raw reply whose frame ${i} is neither an event object (a string type), a frame ({data: string, event?: string}) nor a comment ({comment: string})`;
  }
  return undefined;
}

/**
 * What is wrong with a reply's `splits`, if anything: a list with, for each block, a list
 * of offsets (numbers) or nothing. Checked before the headers go out: a stream that met
 * them broken could only be cut.
 */
function splitsProblem(splits: unknown): string | undefined {
  if (splits === undefined) return undefined;
  if (!Array.isArray(splits)) return `splits that are not a list (${typeof splits})`;
  for (let i = 0; i < splits.length; i++) {
    const offsets: unknown = splits[i];
    if (offsets === undefined || offsets === null) continue;
    if (!Array.isArray(offsets)) return `splits whose item ${i} is not a list of offsets`;
    for (let k = 0; k < offsets.length; k++) {
      if (typeof offsets[k] !== 'number')
        return `splits whose item ${i} holds an offset that is not a number (at ${k})`;
    }
  }
  return undefined;
}
