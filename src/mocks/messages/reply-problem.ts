import type { z } from 'zod';
import { RecordedResponse } from '../../fixtures/schema.js';
import { MessageShape } from '../../protocol/messages/index.js';
import { FaultPlan } from './faults.js';
import type { Reply } from './reply.js';
import { SendableHeaders, unsendableHeader } from './sendable-headers.js';

/** The first issue of a failed parse: where, and what. */
function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  return `${issue?.path.join('.') || '(root)'}: ${issue?.message}`;
}

/** What is wrong with a scenario's reply (a bug in the script), or undefined. */
export function replyProblem(result: Reply): string | undefined {
  if (result === null || typeof result !== 'object') return `no reply (${String(result)})`;
  if (result.kind === 'error') {
    const ok = Number.isInteger(result.status) && result.status >= 400 && result.status <= 599;
    if (!ok) return `an error reply with status ${result.status} (expected 400..599)`;
    if (result.headers === undefined) return undefined;
    const headers = SendableHeaders.safeParse(result.headers);
    return headers.success
      ? undefined
      : `an error reply whose headers are wrong: ${firstIssue(headers.error)}`;
  }
  return bodyProblem(result) ?? faultsProblem(result);
}

/** What is wrong with the reply itself (a message, raw frames, a recording). */
function bodyProblem(result: Exclude<Reply, { kind: 'error' }>): string | undefined {
  if (result.kind === 'message') {
    const parsed = MessageShape.safeParse(result.message);
    if (!parsed.success) return `an invalid message: ${firstIssue(parsed.error)}`;
    return splitsProblem(result.splits);
  }
  if (result.kind === 'raw')
    return Array.isArray(result.frames) ? rawFramesProblem(result.frames) : 'a raw reply without frames';
  if (result.kind === 'recorded') {
    const parsed = RecordedResponse.safeParse(result.response);
    if (!parsed.success) return `an invalid recorded response: ${firstIssue(parsed.error)}`;
    const header = unsendableHeader(parsed.data.headers);
    return header && `a recorded response whose ${header}`;
  }
  return `a reply of unknown kind ${JSON.stringify((result as { kind?: unknown }).kind)}`;
}

/**
 * Faults a script handed over unchecked (those of PUT and of the options are parsed on
 * arrival): a mistyped one would shape the stream wrongly (a `lineEnding` of "nope" wrote
 * "undefined" between frames) or be ignored without a word.
 */
function faultsProblem(result: Exclude<Reply, { kind: 'error' }>): string | undefined {
  if (result.faults === undefined) return undefined;
  const parsed = FaultPlan.safeParse(result.faults);
  return parsed.success ? undefined : `faults the mock cannot apply: ${firstIssue(parsed.error)}`;
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
