import { parseJsonBounded } from '../../protocol/json/index.js';
import {
  ErrorBody,
  type Message,
  MessageDeltaEvent,
  MessageStartEvent,
  mayCutOutput,
  PingEvent,
  STREAM_EVENT_TYPES,
  StreamAccumulator,
  StreamProtocolError,
  type StreamViolationKind,
} from '../../protocol/messages/index.js';
import type { SseFrame } from '../../protocol/sse/index.js';
import { zodIssues } from '../../protocol/zod-issues.js';
import { abbreviate } from './replies.js';
import { describeFrame, type Violation, violation } from './violations.js';

/** A frame whose data is a JSON object, parsed once. */
export interface ParsedFrame {
  readonly frameIndex: number;
  readonly data: Readonly<Record<string, unknown>>;
}

export function parseFrames(frames: readonly SseFrame[]): ParsedFrame[] {
  const parsed: ParsedFrame[] = [];
  frames.forEach((frame, frameIndex) => {
    const { data } = frameData(frame);
    if (data !== undefined) parsed.push({ frameIndex, data });
  });
  return parsed;
}

/** A frame's data as a JSON object, or undefined with the limit it passed when it was refused unparsed. */
export type FrameData =
  | { readonly data: Readonly<Record<string, unknown>>; readonly refused?: undefined }
  | { readonly data: undefined; readonly refused: string | undefined };

/**
 * Each frame's data, parsed once for the twenty-odd rules that read every frame: a
 * service's 16 MiB frame would otherwise be parsed by each. The text is kept beside the
 * result so a frame whose data was replaced is parsed again. The entries live as long as
 * their frames, which are held anyway as long as their reply is.
 */
const parsedData = new WeakMap<SseFrame, { readonly text: string; readonly result: FrameData }>();

export function frameData(frame: SseFrame): FrameData {
  const cached = parsedData.get(frame);
  if (cached !== undefined && cached.text === frame.data) return cached.result;
  const result = jsonObject(frame.data);
  parsedData.set(frame, { text: frame.data, result });
  return result;
}

/** Within the JSON limits: a `[[[[...` frame from the service costs no parse, only a scan. */
function jsonObject(text: string): FrameData {
  const parsed = parseJsonBounded(text);
  if (!parsed.ok)
    return { data: undefined, refused: parsed.reason === 'syntax' ? undefined : parsed.message };
  const value = parsed.value;
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? { data: value as Record<string, unknown> }
    : { data: undefined, refused: undefined };
}

function typeOf(data: Readonly<Record<string, unknown>>): string | undefined {
  return typeof data.type === 'string' ? data.type : undefined;
}

/**
 * "Events": each frame is an `event:` line and a `data:` line holding JSON whose `type`
 * equals the event name, closed by a blank line.
 */
export function frameFormatViolations(frames: readonly SseFrame[], unterminated: string): Violation[] {
  const found: Violation[] = [];
  frames.forEach((frame, i) => {
    const where = describeFrame(frames, i);
    if (frame.event === undefined || frame.event === '') {
      found.push(violation(where, 'an `event:` line naming the event', 'no event line', i));
      return;
    }
    const { data, refused } = frameData(frame);
    if (data === undefined) {
      const arrived =
        refused === undefined ? abbreviate(frame.data) : `${refused} in ${abbreviate(frame.data)}`;
      found.push(violation(where, 'a `data:` line holding a JSON object', arrived, i));
      return;
    }
    if (data.type !== frame.event) {
      found.push(
        violation(
          where,
          `data.type equal to the event name ${JSON.stringify(frame.event)}`,
          `type ${JSON.stringify(data.type)}`,
          i,
        ),
      );
    }
  });
  if (holdsFrame(unterminated)) {
    found.push(
      violation(
        `end of stream after ${frames.length} frames`,
        'every frame closed by a blank line',
        `an unterminated frame ${abbreviate(unterminated)} (clients discard it)`,
      ),
    );
  }
  return found;
}

/**
 * Whether text left after the last blank line would have been a frame: it has a line other
 * than `id:` and `retry:`. Those two set reader state and dispatch nothing (SSE), so a stray
 * one at the end is no unclosed frame; the real API sends neither.
 */
export function holdsFrame(unterminated: string): boolean {
  return unterminated.split('\n').some((line) => line !== '' && !/^(id|retry)(:|$)/.test(line));
}

/** Where following the stream with the reducer stopped, and why. */
export interface StreamProblem {
  readonly kind: StreamViolationKind;
  /** The frame that broke the rule; undefined when the stream ended too early. */
  readonly frameIndex: number | undefined;
  readonly expected: string;
  readonly actual: string;
}

export interface FollowedStream {
  /** The final message, when the whole stream reduced without a problem. */
  readonly message: Message | undefined;
  readonly problem: StreamProblem | undefined;
  /** content_block_stop frames that closed a block without any delta. */
  readonly stopsWithoutDeltas: readonly number[];
}

/** Fold the stream's frames with the protocol's StreamAccumulator, mapping its event positions to frames. */
export function followStream(frames: readonly SseFrame[]): FollowedStream {
  const parsed = parseFrames(frames);
  const acc = new StreamAccumulator();
  let message: Message | undefined;
  let problem: StreamProblem | undefined;
  try {
    for (const p of parsed) acc.push(p.data);
    message = acc.finish();
  } catch (e) {
    if (!(e instanceof StreamProtocolError)) throw e;
    const frameIndex = e.kind === 'truncated' ? undefined : parsed[e.eventIndex]?.frameIndex;
    problem = { kind: e.kind, frameIndex, expected: e.expected, actual: e.actual };
  }
  // One map for all blocks: a stream of 30k empty blocks must not search the stream 30k times.
  const stops = acc.blocksWithoutDeltas.length === 0 ? undefined : firstStops(parsed);
  const stopsWithoutDeltas = acc.blocksWithoutDeltas.map((index) => stops?.get(index) ?? -1);
  return { message, problem, stopsWithoutDeltas };
}

/** The frame of the first content_block_stop of each index. */
function firstStops(parsed: readonly ParsedFrame[]): Map<unknown, number> {
  const stops = new Map<unknown, number>();
  for (const p of parsed) {
    if (typeOf(p.data) === 'content_block_stop' && !stops.has(p.data.index)) {
      stops.set(p.data.index, p.frameIndex);
    }
  }
  return stops;
}

/** The service's `error` event that ended a stream, as the real API ends one it cannot finish. */
export interface ErrorEnding {
  readonly frameIndex: number;
  /** `error.type` and `error.message` of the event. */
  readonly type: string;
  readonly message: string;
}

/**
 * The spec leaves "an error event within the message stream" not shown; the real API sends
 * `event: error` with its error body (overloaded_error...) and ends the stream there. A
 * stream whose last event a reader acts on is such an event broke no rule by stopping short
 * of message_stop. A ping may come anywhere (the spec), and readers skip an event the spec
 * does not name (stream.unknown-events warns of it): neither after the error undoes the ending.
 */
export function errorEnding(frames: readonly SseFrame[]): ErrorEnding | undefined {
  let frameIndex = frames.length - 1;
  while (frameIndex >= 0 && skippedByReaders(frames[frameIndex]!)) frameIndex--;
  const last = frames[frameIndex];
  if (last === undefined || last.event !== 'error') return undefined;
  const body = ErrorBody.safeParse(frameData(last).data);
  return body.success
    ? { frameIndex, type: body.data.error.type, message: body.data.error.message }
    : undefined;
}

/** A ping, or an event of a name the spec does not list (a frame without one is SSE's `message`). */
function skippedByReaders(frame: SseFrame): boolean {
  return frame.event === 'ping' || !KNOWN_EVENTS.has(frame.event ?? '');
}

export function describeErrorEnding(frames: readonly SseFrame[], ending: ErrorEnding): string {
  return `ended by the service's error event at ${describeFrame(frames, ending.frameIndex)} (${ending.type}: ${abbreviate(ending.message)})`;
}

/** Whether the stream holds an event of `type` (its data's type). */
export function hasEvent(frames: readonly SseFrame[], type: string): boolean {
  return parseFrames(frames).some((p) => typeOf(p.data) === type);
}

/** The check that reports a stream the reducer could not follow. */
const REDUCES_CHECK = 'messages-service.stream.reduces-to-message';

/** Problems of the reducer that are about Events rule 1 (order, indexes, early end). */
const ORDER_KINDS: ReadonlySet<StreamViolationKind> = new Set(['order', 'index', 'truncated']);

export function isOrderProblem(problem: StreamProblem): boolean {
  return ORDER_KINDS.has(problem.kind);
}

function problemWhere(frames: readonly SseFrame[], problem: StreamProblem, readError?: string): string {
  if (problem.frameIndex !== undefined) return describeFrame(frames, problem.frameIndex);
  const broke = readError === undefined ? '' : ` (the body broke off: ${readError})`;
  return `end of stream after ${frames.length} frames${broke}`;
}

/** Violations of the reducer's verdict, whatever the kind, located at their frame. */
export function problemViolations(
  frames: readonly SseFrame[],
  problem: StreamProblem | undefined,
  readError?: string,
): Violation[] {
  return problem
    ? [
        violation(
          problemWhere(frames, problem, readError),
          problem.expected,
          problem.actual,
          problem.frameIndex,
        ),
      ]
    : [];
}

/**
 * Whether the reducer stopped only because the frames ran out where wirecheck stopped reading
 * (`cutByWirecheck`, the reply's): the service had not ended the stream, so that is no early end.
 */
export function cutShort(problem: StreamProblem | undefined, cutByWirecheck: string | undefined): boolean {
  return problem?.kind === 'truncated' && cutByWirecheck !== undefined;
}

/**
 * Events rule 1: message_start, then per block start / one or more deltas / stop, then
 * message_delta, message_stop. `undetermined` says why the order past some frame could not
 * be followed (a malformed frame stopped the reducer first); other checks report that frame.
 * A stream cut by wirecheck (`cutByWirecheck`) is judged up to the cut.
 */
export function orderViolations(
  frames: readonly SseFrame[],
  followed: FollowedStream,
  readError?: string,
  cutByWirecheck?: string,
): { violations: Violation[]; undetermined: string | undefined } {
  const violations: Violation[] = [];
  let undetermined: string | undefined;
  const { problem } = followed;
  if (cutShort(problem, cutByWirecheck)) {
    // The order up to the cut was followed; what came after it was never read.
  } else if (problem && isOrderProblem(problem)) {
    violations.push(...problemViolations(frames, problem, readError));
  } else if (problem?.kind === 'error-event' && errorEnding(frames)?.frameIndex === problem.frameIndex) {
    // The order up to the error event was followed; the stream may end there.
  } else if (problem) {
    undetermined =
      problem.kind === 'json' && cuttingStopReason(frames) !== undefined
        ? `the order could not be followed past ${problemWhere(frames, problem)}, a tool input cut mid-JSON by stop reason ${JSON.stringify(cuttingStopReason(frames))} (allowed)`
        : `the order could not be followed past ${problemWhere(frames, problem)}: ${problem.kind}: expected ${problem.expected}, got ${problem.actual}; see ${REDUCES_CHECK}`;
  }
  for (const stop of followed.stopsWithoutDeltas) {
    violations.push(
      violation(
        describeFrame(frames, stop),
        'one or more content_block_delta before content_block_stop',
        'none',
        stop >= 0 ? stop : undefined,
      ),
    );
  }
  return { violations, undetermined };
}

/** "Events: message_start": the message container, content [], stop_reason null, usage with input_tokens. */
export function messageStartViolations(frames: readonly SseFrame[]): Violation[] {
  const start = parseFrames(frames).find((p) => typeOf(p.data) === 'message_start');
  if (!start) return [violation('the whole stream', 'a message_start frame', 'none')];
  const parsed = MessageStartEvent.safeParse(start.data);
  if (parsed.success) return [];
  return [
    violation(
      describeFrame(frames, start.frameIndex),
      'message_start {message: {id, type: message, role: assistant, content: [], model, stop_reason: null, stop_sequence: null, usage: {input_tokens, output_tokens}}}',
      zodIssues(parsed.error),
      start.frameIndex,
    ),
  ];
}

/** "Events: message_delta": stop_reason in the enum, final usage.output_tokens. */
export function messageDeltaViolations(frames: readonly SseFrame[]): Violation[] {
  const deltas = parseFrames(frames).filter((p) => typeOf(p.data) === 'message_delta');
  if (deltas.length === 0) return [violation('the whole stream', 'a message_delta frame', 'none')];
  const found: Violation[] = [];
  for (const d of deltas) {
    const parsed = MessageDeltaEvent.safeParse(d.data);
    if (!parsed.success) {
      found.push(
        violation(
          describeFrame(frames, d.frameIndex),
          'message_delta {delta: {stop_reason: end_turn|max_tokens|stop_sequence|tool_use, stop_sequence}, usage: {output_tokens}}',
          zodIssues(parsed.error),
          d.frameIndex,
        ),
      );
    }
  }
  return found;
}

const TOKEN_KEY = /usage|tokens/i;

/** Events rule 2: content_block_delta carries no token counts. */
export function deltaUsageViolations(frames: readonly SseFrame[]): {
  deltas: number;
  violations: Violation[];
} {
  const found: Violation[] = [];
  let deltas = 0;
  for (const p of parseFrames(frames)) {
    if (typeOf(p.data) !== 'content_block_delta') continue;
    deltas++;
    const delta = p.data.delta;
    const keys = [
      ...Object.keys(p.data),
      ...(delta !== null && typeof delta === 'object' ? Object.keys(delta).map((k) => `delta.${k}`) : []),
    ].filter((k) => TOKEN_KEY.test(k));
    if (keys.length > 0) {
      found.push(
        violation(
          describeFrame(frames, p.frameIndex),
          'no token counts in a delta',
          keys.join(', '),
          p.frameIndex,
        ),
      );
    }
  }
  return { deltas, violations: found };
}

/** The stop reason of the stream's message_delta when it may have cut the output short (max_tokens, refusal...). */
export function cuttingStopReason(frames: readonly SseFrame[]): string | undefined {
  for (const p of parseFrames(frames)) {
    const delta = p.data.delta as { stop_reason?: unknown } | undefined;
    if (typeOf(p.data) === 'message_delta' && mayCutOutput(delta?.stop_reason))
      return delta?.stop_reason as string;
  }
  return undefined;
}

/** content_block_start frames that open a tool_use block. */
export function toolUseStarts(frames: readonly SseFrame[]): ParsedFrame[] {
  return parseFrames(frames).filter(isToolUseStart);
}

function isToolUseStart(p: ParsedFrame): boolean {
  const block = p.data.content_block as { type?: unknown } | undefined;
  return typeOf(p.data) === 'content_block_start' && block?.type === 'tool_use';
}

/**
 * Events rule 3: the partial_json fragments of each tool_use block, concatenated, parse
 * into an object at content_block_stop. A block cut short (max_tokens, refusal...) may end mid-JSON.
 */
export function partialJsonViolations(
  frames: readonly SseFrame[],
  followed: FollowedStream,
  cutByWirecheck?: string,
): { violations: Violation[]; undetermined: string | undefined } {
  const { problem } = followed;
  if (problem?.kind === 'json') {
    const stopReason = cuttingStopReason(frames);
    if (stopReason !== undefined) {
      return {
        violations: [],
        undetermined: `the stream was cut by stop reason ${JSON.stringify(stopReason)} at ${problemWhere(frames, problem)}, mid-JSON (allowed)`,
      };
    }
    return { violations: problemViolations(frames, problem), undetermined: undefined };
  }
  const ending = errorEnding(frames);
  if (problem?.kind === 'error-event' && ending !== undefined && ending.frameIndex === problem.frameIndex) {
    // Each input was parsed at its content_block_stop; one still open was cut by the error.
    // With every block closed, the fragments before the error are judged as in a whole stream.
    const parsed = parseFrames(frames);
    if (hasOpenToolUse(parsed)) {
      return {
        violations: [],
        undetermined: `a tool input was cut: the stream ${describeErrorEnding(frames, ending)}`,
      };
    }
    return fragmentsSeen(parsed, frames);
  }
  if (cutShort(problem, cutByWirecheck)) {
    // As before an error event: blocks closed before the cut are judged, one still open is not.
    const parsed = parseFrames(frames);
    if (hasOpenToolUse(parsed)) {
      return {
        violations: [],
        undetermined: `a tool input was still open where wirecheck stopped reading, after ${frames.length} frames (${cutByWirecheck})`,
      };
    }
    return fragmentsSeen(parsed, frames);
  }
  if (problem) {
    return {
      violations: [],
      undetermined: `the stream could not be followed past ${problemWhere(frames, problem)} (${problem.kind}); see ${REDUCES_CHECK}`,
    };
  }
  return fragmentsSeen(parseFrames(frames), frames);
}

/**
 * A stream followed whole judges rule 3 only where a tool input came as fragments: a block
 * whose partial_json joins to nothing has no input to parse (an empty input, which the real
 * API streams as one empty fragment) unless its content_block_start carried the input whole,
 * which a consumer following rule 3 never reads.
 */
function fragmentsSeen(
  parsed: readonly ParsedFrame[],
  frames: readonly SseFrame[],
): { violations: Violation[]; undetermined: string | undefined } {
  const blocks = new Map<unknown, { start: ParsedFrame; fragments: boolean }>();
  for (const p of parsed) {
    if (isToolUseStart(p)) blocks.set(p.data.index, { start: p, fragments: false });
    const delta = p.data.delta as { type?: unknown; partial_json?: unknown } | undefined;
    const block = typeOf(p.data) === 'content_block_delta' ? blocks.get(p.data.index) : undefined;
    if (block !== undefined && typeof delta?.partial_json === 'string' && delta.partial_json !== '')
      block.fragments = true;
  }
  const violations: Violation[] = [];
  for (const { start, fragments } of blocks.values()) {
    const input = (start.data.content_block as { input?: unknown }).input;
    if (fragments || !isNonEmptyObject(input)) continue;
    violations.push(
      violation(
        describeFrame(frames, start.frameIndex),
        'the tool input as partial_json fragments (content_block_start opens the block with its id and name)',
        `the input whole in content_block_start (${abbreviate(JSON.stringify(input))}) and no partial_json text for index ${String(start.data.index)}`,
        start.frameIndex,
      ),
    );
  }
  const judged = [...blocks.values()].some((b) => b.fragments);
  return {
    violations,
    undetermined:
      judged || violations.length > 0
        ? undefined
        : 'no tool input came as fragments: every tool_use block had an empty input (no partial_json text to join)',
  };
}

function isNonEmptyObject(v: unknown): boolean {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length > 0;
}

/**
 * Whether a tool_use block has no content_block_stop of its index after its start. One
 * pass from the end, remembering the indexes stopped so far: a hostile stream of 30k
 * blocks must not be searched once per block.
 */
function hasOpenToolUse(parsed: readonly ParsedFrame[]): boolean {
  const stopped = new Set<unknown>();
  for (let i = parsed.length - 1; i >= 0; i--) {
    const p = parsed[i]!;
    if (typeOf(p.data) === 'content_block_stop') stopped.add(p.data.index);
    else if (isToolUseStart(p) && !stopped.has(p.data.index)) return true;
  }
  return false;
}

/** "Events: ping": data `{type: ping}`. */
export function pingViolations(frames: readonly SseFrame[]): { pings: number; violations: Violation[] } {
  let pings = 0;
  const found: Violation[] = [];
  frames.forEach((frame, i) => {
    const { data } = frameData(frame);
    if (frame.event !== 'ping' && data?.type !== 'ping') return;
    pings++;
    if (!PingEvent.safeParse(data).success || frame.event !== 'ping') {
      found.push(
        violation(
          describeFrame(frames, i),
          'event: ping with data {"type":"ping"}',
          abbreviate(frame.data),
          i,
        ),
      );
    }
  });
  return { pings, violations: found };
}

const KNOWN_EVENTS: ReadonlySet<string> = new Set(STREAM_EVENT_TYPES);

/** Event names and data types outside the spec's list (clients of the real API ignore them). */
export function unknownNameViolations(frames: readonly SseFrame[]): Violation[] {
  const found: Violation[] = [];
  frames.forEach((frame, i) => {
    const type = frameData(frame).data?.type;
    if (frame.event !== undefined && !KNOWN_EVENTS.has(frame.event)) {
      found.push(
        violation(describeFrame(frames, i), 'an event named in the spec', `event ${frame.event}`, i),
      );
    } else if (typeof type === 'string' && !KNOWN_EVENTS.has(type)) {
      found.push(violation(describeFrame(frames, i), 'a data type named in the spec', `type ${type}`, i));
    }
  });
  return found;
}

/** SSE lines other than event, data, id, retry and comments (the SSE format says readers ignore them). */
export function unknownFieldViolations(invalidLines: readonly string[]): Violation[] {
  return invalidLines.map((line) =>
    violation('an SSE line', 'only event/data (or id/retry/comment) lines', abbreviate(line)),
  );
}

/**
 * "Events: content_block_start": a text block starts as `{type: text, text: ""}`; the
 * deltas that follow carry its text.
 */
export function textStartViolations(frames: readonly SseFrame[]): {
  starts: number;
  violations: Violation[];
} {
  let starts = 0;
  const found: Violation[] = [];
  for (const p of parseFrames(frames)) {
    if (typeOf(p.data) !== 'content_block_start') continue;
    const block = p.data.content_block as { type?: unknown; text?: unknown } | undefined;
    if (block?.type !== 'text') continue;
    starts++;
    if (block.text !== '') {
      found.push(
        violation(
          describeFrame(frames, p.frameIndex),
          'content_block {type: text, text: ""} (the deltas carry the text)',
          `text ${JSON.stringify(block.text)}`,
          p.frameIndex,
        ),
      );
    }
  }
  return { starts, violations: found };
}

/** message_start's usage.input_tokens, when the frame is there and holds a number. */
export function startInputTokens(frames: readonly SseFrame[]): number | undefined {
  const start = parseFrames(frames).find((p) => typeOf(p.data) === 'message_start');
  const usage = (start?.data.message as { usage?: { input_tokens?: unknown } } | undefined)?.usage;
  return typeof usage?.input_tokens === 'number' ? usage.input_tokens : undefined;
}
