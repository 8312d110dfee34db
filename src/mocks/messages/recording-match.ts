import { clip } from '../../protocol/clip.js';
import { isSecretName, REDACTED, redactBody, redactTarget } from '../../recording/redact.js';

/**
 * Which recording answers a request when a replay matches requests (`--match request`):
 * the recorded request and the arriving one are compared on method, request target and
 * JSON body. Pure: the scenario keeps which recordings were used (recording-scenario.ts).
 */

/** The parts of a recorded request that are compared (a RecordedRequest has them). */
export interface ComparedRequest {
  readonly method: string;
  /** The request target, query string included. */
  readonly path: string;
  /**
   * Only the part of `path` before the query string is known (the mock's journal, where the
   * scenario finds the target, kept no entry of the request): the recorded query is not compared.
   */
  readonly queryUnknown?: boolean;
  /** The parsed JSON body; `bodyText` / `bodyBase64` when the recorded body was not JSON. */
  readonly body?: unknown;
  readonly bodyText?: string | undefined;
  readonly bodyBase64?: string | undefined;
}

/** A recording as the matcher sees it. */
export interface MatchCandidate {
  readonly request: ComparedRequest;
  /**
   * The reply is sent in the mode the request asks for whatever `stream` it was recorded
   * with (recordingAsAsked converts it), so `stream` is not compared.
   */
  readonly streamEither: boolean;
}

export type RequestDifferenceKind = 'missing' | 'extra' | 'changed';

/** One way the arrived request differs from a recorded one. */
export interface RequestDifference {
  /** `method`, `path`, or a JSON path into the body (`$.messages[1].content[0].text`). */
  readonly at: string;
  readonly kind: RequestDifferenceKind;
  /** Absent for `extra`. */
  readonly recorded?: unknown;
  /** Absent for `missing`. */
  readonly arrived?: unknown;
}

/**
 * What the recorder leaves where a secret was: `[redacted]`, or a same-length mask
 * (`[redacted****]`) in bytes that had to keep their length. The all-star mask of a short
 * secret (`********`) is left out: it cannot be told apart from text that is stars.
 */
const MASK = /\[redacted\**\]/;
const MASKS = new RegExp(MASK.source, 'g');

/**
 * Whether `arrived` is `recorded` up to its masks, each of which stands for any text
 * (the secret the recorder hid, or nothing: an empty credential field is masked too).
 */
export function matchesMasked(recorded: string, arrived: string): boolean {
  if (recorded === arrived) return true;
  if (!MASK.test(recorded)) return false;
  const parts = recorded.split(MASKS);
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  if (!arrived.startsWith(first)) return false;
  let at = first.length;
  // Leftmost placement of each middle part leaves the most room for those after it.
  for (let i = 1; i < parts.length - 1; i++) {
    const found = arrived.indexOf(parts[i]!, at);
    if (found < 0) return false;
    at = found + parts[i]!.length;
  }
  return arrived.length - at >= last.length && arrived.endsWith(last);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function member(key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

/** The recorded body as a value to compare: the JSON, else a stand-in no JSON body equals. */
function recordedBody(request: ComparedRequest): unknown {
  if (request.body !== undefined) return request.body;
  if (request.bodyText !== undefined) return { '(text body)': request.bodyText };
  if (request.bodyBase64 !== undefined) return { '(binary body, base64)': request.bodyBase64 };
  return undefined;
}

/** A request's `stream` as the spec reads it: only `true` asks for a stream. */
function streamOf(body: unknown): boolean {
  return isObject(body) && body.stream === true;
}

/**
 * How `arrived` differs from `candidate`'s recorded request, in document order, at most
 * `limit` (default: all). Object key order never matters, array order does; a masked
 * string matches any string (matchesMasked).
 */
export function requestDifferences(
  candidate: MatchCandidate,
  arrived: ComparedRequest,
  limit = Number.POSITIVE_INFINITY,
): RequestDifference[] {
  const out: RequestDifference[] = [];
  const recorded = candidate.request;
  if (recorded.method.toUpperCase() !== arrived.method.toUpperCase()) {
    out.push({ at: 'method', kind: 'changed', recorded: recorded.method, arrived: arrived.method });
  }
  const recordedPath = arrived.queryUnknown ? recorded.path.split('?')[0]! : recorded.path;
  if (out.length < limit && !matchesMasked(recordedPath, arrived.path)) {
    out.push({ at: 'path', kind: 'changed', recorded: recorded.path, arrived: arrived.path });
  }
  if (out.length >= limit) return out;
  const expected = recordedBody(recorded);
  const actual = arrived.body;
  // `stream` absent and false both ask for one JSON message; either mode, when convertible.
  const skipStream = candidate.streamEither || streamOf(expected) === streamOf(actual);
  bodyDifferences(expected, actual, skipStream, limit - out.length, out);
  return out;
}

function bodyDifferences(
  expected: unknown,
  actual: unknown,
  skipStream: boolean,
  limit: number,
  out: RequestDifference[],
): void {
  const start = out.length;
  // An explicit stack, not recursion: a body may nest as deep as the mock admits.
  const stack: Array<{ e: unknown; a: unknown; at: string }> = [{ e: expected, a: actual, at: '$' }];
  const full = () => out.length - start >= limit;
  while (stack.length > 0 && !full()) {
    const { e, a, at } = stack.pop()!;
    if (Object.is(e, a)) continue;
    if (typeof e === 'string' && typeof a === 'string') {
      if (!matchesMasked(e, a)) out.push({ at, kind: 'changed', recorded: e, arrived: a });
      continue;
    }
    if (Array.isArray(e) && Array.isArray(a)) {
      const children: Array<{ e: unknown; a: unknown; at: string }> = [];
      const shared = Math.min(e.length, a.length);
      for (let i = 0; i < shared; i++) children.push({ e: e[i], a: a[i], at: `${at}[${i}]` });
      // The first element one side lacks stands for the rest: one turn appended is one difference.
      if (e.length > shared) children.push({ e: e[shared], a: undefined, at: `${at}[${shared}]` });
      if (a.length > shared) children.push({ e: undefined, a: a[shared], at: `${at}[${shared}]` });
      for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
      continue;
    }
    if (isObject(e) && isObject(a)) {
      const children: Array<{ e: unknown; a: unknown; at: string }> = [];
      const root = at === '$';
      for (const key of Object.keys(e)) {
        if (root && key === 'stream' && skipStream) continue;
        children.push({
          e: e[key],
          a: Object.hasOwn(a, key) ? a[key] : undefined,
          at: `${at}${member(key)}`,
        });
      }
      for (const key of Object.keys(a)) {
        if (Object.hasOwn(e, key) || (root && key === 'stream' && skipStream)) continue;
        children.push({ e: undefined, a: a[key], at: `${at}${member(key)}` });
      }
      for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
      continue;
    }
    if (e === undefined) out.push({ at, kind: 'extra', arrived: a });
    else if (a === undefined) out.push({ at, kind: 'missing', recorded: e });
    else if (!isEqualJson(e, a)) out.push({ at, kind: 'changed', recorded: e, arrived: a });
  }
}

/** Numbers that print alike (JSON has one number type), and the rest by identity. */
function isEqualJson(e: unknown, a: unknown): boolean {
  return typeof e === 'number' && typeof a === 'number' && e === a;
}

/** Which recordings answer a request: those it matches, or the nearest one and how it differs. */
export type MatchResult =
  | { readonly kind: 'matched'; readonly indices: readonly number[] }
  | {
      readonly kind: 'unmatched';
      /** The recording with the fewest differences (the first of those). */
      readonly nearest: number;
      /** Its differences, counted up to DIFFERENCES_COUNTED. */
      readonly differences: readonly RequestDifference[];
    };

/** Differences counted at most when looking for the nearest recording: past this, far is far. */
export const DIFFERENCES_COUNTED = 50;

/** The recordings `arrived` matches, in their order; when none, the nearest. `candidates` is not empty. */
export function matchRequest(candidates: readonly MatchCandidate[], arrived: ComparedRequest): MatchResult {
  const indices: number[] = [];
  for (let i = 0; i < candidates.length; i++) {
    if (requestDifferences(candidates[i]!, arrived, 1).length === 0) indices.push(i);
  }
  if (indices.length > 0) return { kind: 'matched', indices };
  let nearest = 0;
  let best: RequestDifference[] | undefined;
  for (let i = 0; i < candidates.length; i++) {
    // A recording counts only up to the best so far: it can only tie or lose past that.
    const found = requestDifferences(candidates[i]!, arrived, best ? best.length : DIFFERENCES_COUNTED);
    if (best === undefined || found.length < best.length) {
      best = found;
      nearest = i;
    }
  }
  return { kind: 'unmatched', nearest, differences: best ?? [] };
}

/** Longest value shown of either side (the body is the user's own request, but a line stays a line). */
export const SHOWN_CHARS = 80;

/**
 * A value of a difference as a message shows it: JSON, at most SHOWN_CHARS characters, with
 * credential-named fields as `[redacted]` (the key itself, where the value sits under one) and
 * a request target's credential query parameters redacted.
 */
function shown(value: unknown, at: string): string {
  if (value === undefined) return 'nothing';
  const key = /\.([A-Za-z_$][\w$]*)$|\["((?:[^"\\]|\\.)*)"\]$/.exec(at);
  const name = key?.[1] ?? (key?.[2] === undefined ? undefined : (JSON.parse(`"${key[2]}"`) as string));
  let safe: unknown;
  if (at === 'path' && typeof value === 'string') safe = redactTarget(value);
  else if (name !== undefined && typeof value === 'string' && isSecretName(name)) safe = REDACTED;
  else safe = redactBody(value);
  return clip(JSON.stringify(safe) ?? String(safe), SHOWN_CHARS);
}

/** `at $.messages[1].content: recorded "a", arrived "b"`, values clipped and redacted (see `shown`). */
export function describeRequestDifference(d: RequestDifference): string {
  return `${d.at}: recorded ${shown(d.recorded, d.at)}, arrived ${shown(d.arrived, d.at)}`;
}
