import { CheckFailure } from '../../harness/check.js';
import type { SseFrame } from '../../protocol/sse/index.js';
import { streamEvidence } from './evidence.js';
import { abbreviate, type StreamedReply } from './replies.js';

/** One broken rule in what the service sent: where, what the rule expects, what arrived. */
export interface Violation {
  /** e.g. `tool stream, frame 4 «event: content_block_delta | data: {...}»`. */
  readonly where: string;
  readonly expected: string;
  readonly actual: string;
  /** The frame that broke the rule, when one did (marked in the report's picture). */
  readonly frameIndex?: number;
  /** The stream it happened in, with its label: the report draws its frames. */
  readonly stream?: { readonly label: string; readonly reply: StreamedReply };
}

export function violation(where: string, expected: string, actual: string, frameIndex?: number): Violation {
  return { where, expected, actual, ...(frameIndex !== undefined && { frameIndex }) };
}

/**
 * The same violations, located in a named reply ("text stream", "buffered tool reply");
 * given the streamed reply, a failure carries its frames as evidence.
 */
export function within(label: string, violations: readonly Violation[], stream?: StreamedReply): Violation[] {
  return violations.map((v) => ({
    ...v,
    where: `${label}, ${v.where}`,
    ...(stream !== undefined && { stream: { label, reply: stream } }),
  }));
}

/** A frame quoted whole (abbreviated), so a failure shows exactly what broke the rule. */
export function describeFrame(frames: readonly SseFrame[], index: number): string {
  const frame = frames[index];
  if (!frame) return `frame ${index} (past the end of the stream)`;
  const event = frame.event === undefined ? 'no event line' : `event: ${frame.event}`;
  return `frame ${index} «${event} | data: ${abbreviate(frame.data, 400).slice(1, -1)}»`;
}

/** Throw the first violation as the check's failure, naming how many more there were. */
export function failOn(violations: readonly Violation[], rule: string): void {
  const first = violations[0];
  if (!first) return;
  const rest = violations.length - 1;
  const more =
    rest === 0
      ? ''
      : ` (and ${rest} more, e.g. ${violations
          .slice(1, 3)
          .map((v) => v.where)
          .join('; ')})`;
  throw new CheckFailure(
    `${rule}: at ${first.where}: expected ${first.expected}, got ${first.actual}${more}`,
    first.expected,
    first.actual,
    first.stream && streamEvidence(first.stream.label, first.stream.reply, first.frameIndex),
  );
}
