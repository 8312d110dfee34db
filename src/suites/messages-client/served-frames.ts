import { CheckFailure } from '../../harness/check.js';
import type { Evidence, FrameItem } from '../../harness/results.js';
import { type FaultPlan, type JournalEntry, planMessageSteps } from '../../mocks/messages/index.js';
import { type DeltaSplits, type Message, STREAM_EVENT_TYPES } from '../../protocol/messages/index.js';
import { createFrameDecoder } from '../../protocol/sse/index.js';

/** Frames and comments kept (a generated stream may be long). */
const MAX_ITEMS = 1_000;
/** Steps of the plan replayed at most, whatever the stream's size. */
const MAX_STEPS = 20_000;
const MAX_DATA_CHARS = 4_000;

const KNOWN_EVENTS: ReadonlySet<string> = new Set(STREAM_EVENT_TYPES);

function clipped(text: string): string {
  return text.length <= MAX_DATA_CHARS
    ? text
    : `${text.slice(0, MAX_DATA_CHARS)}… (${text.length - MAX_DATA_CHARS} more chars)`;
}

/** The first frame a client could trip on: no event line, data that is not a JSON object, a type other than the event, an unknown or error event. */
function offending(item: FrameItem): boolean {
  if (item.comment) return false;
  if (item.event === undefined || item.event === 'error' || !KNOWN_EVENTS.has(item.event)) return true;
  try {
    const data: unknown = JSON.parse(item.data);
    return (
      data === null ||
      typeof data !== 'object' ||
      Array.isArray(data) ||
      (data as { type?: unknown }).type !== item.event
    );
  } catch {
    return true;
  }
}

/**
 * The frames the mock served for a streamed reply of `message`, replayed from the mock's
 * plan: the same message, splits, faults and the seed the journal recorded give the same
 * bytes (planMessageSteps is pure). Times are the plan's own pauses, not measured ones.
 * Undefined when no streamed request reached the mock.
 */
export function servedFramesEvidence(
  message: Message,
  splits: DeltaSplits | undefined,
  faults: FaultPlan | undefined,
  requests: readonly JournalEntry[],
): Evidence | undefined {
  const index = requests.findIndex((r) => r.stream && r.status === 200 && r.seed !== undefined);
  const entry = requests[index];
  if (entry?.seed === undefined) return undefined;
  const items: FrameItem[] = [];
  let atMs = 0;
  const decoder = createFrameDecoder({
    onFrame(frame) {
      if (items.length < MAX_ITEMS)
        items.push({
          atMs,
          ...(frame.event !== undefined && { event: frame.event }),
          data: clipped(frame.data),
        });
    },
    onComment(text) {
      if (items.length < MAX_ITEMS) items.push({ atMs, data: clipped(text), comment: true });
    },
  });
  let steps = 0;
  let ended = 'the stream ended';
  for (const step of planMessageSteps(message, splits, faults, entry.seed, { requestId: entry.requestId })) {
    if (++steps > MAX_STEPS || items.length >= MAX_ITEMS) {
      ended = 'the rest is not shown';
      break;
    }
    if (step.kind === 'write') decoder.feed(step.data);
    else if (step.kind === 'wait') atMs += step.ms;
    else if (step.kind === 'stall' || step.kind === 'disconnect' || step.kind === 'end') {
      ended =
        step.kind === 'stall'
          ? 'then the mock went silent'
          : step.kind === 'disconnect'
            ? 'then the mock cut the connection'
            : ended;
      break;
    }
  }
  const unterminated = decoder.end();
  if (unterminated !== '' && items.length < MAX_ITEMS)
    items.push({ atMs, data: clipped(`(unterminated, discarded by SSE) ${unterminated}`), comment: true });
  const mark = items.findIndex(offending);
  const of = requests.length > 1 ? ` (request ${index + 1} of ${requests.length})` : '';
  return {
    kind: 'frames',
    title: `frames the mock served${of}, replayed from its plan with seed ${entry.seed}; ${ended}`,
    frames: items,
    ...(mark >= 0 && { mark }),
  };
}

/** Run `judge`; a CheckFailure it throws without a picture gets the served frames as evidence. */
export function withServedFrames(judge: () => void, evidence: () => Evidence | undefined): void {
  try {
    judge();
  } catch (e) {
    if (!(e instanceof CheckFailure) || e.evidence !== undefined) throw e;
    const picture = evidence();
    if (picture === undefined) throw e;
    throw new CheckFailure(e.message, e.expected, e.actual, picture);
  }
}
