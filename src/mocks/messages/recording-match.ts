import { createHash } from 'node:crypto';
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
      /**
       * The recording whose messages agree with the request's for the most turns from the
       * first (a session's later recordings before its earlier ones), of those the one with
       * the fewest differences, the first of a tie.
       */
      readonly nearest: number;
      /** Its differences, counted up to DIFFERENCES_COUNTED. */
      readonly differences: readonly RequestDifference[];
    };

/** Differences counted at most when looking for the nearest recording: past this, far is far. */
export const DIFFERENCES_COUNTED = 50;

/**
 * Recordings sharing the longest run of turns whose differences are counted to pick the
 * nearest: counting walks a whole body, so a miss among many alike recordings stays bounded.
 */
export const NEAREST_COUNTED = 8;

/**
 * A request's body in parts that compare in constant time: a digest of everything but the
 * turns (`rest`), one per turn, and one of the whole. Keys are sorted before digesting (key
 * order never matters) and `stream` at the top is left out (it is judged on its own).
 */
interface BodyDigest {
  readonly whole: string;
  readonly rest: string;
  /** The body without `messages` and `stream`, for a masked comparison; the body itself when no object. */
  readonly restValue: unknown;
  /** Absent when the body holds no `messages` array (its `messages`, if any, is in `rest`). */
  readonly messages: readonly unknown[] | undefined;
  readonly turns: readonly string[];
  /** Whether a recorded mask is in `rest`, in a turn (by index), or anywhere: those compare by walking. */
  readonly restMasked: boolean;
  readonly maskedTurns: ReadonlySet<number>;
  readonly masked: boolean;
  readonly stream: boolean;
}

/** A literal to emit, on the stack of values to serialize. */
class Literal {
  constructor(readonly text: string) {}
}

/** With the `u` flag a surrogate matches only where it pairs with none. */
const LONE_SURROGATE = /\p{Cs}/u;

/** Text gathered before it is handed to the hash: a call per key or comma cost more than the hashing. */
const PENDING_CHARS = 4096;

/**
 * A digest of `value` as JSON with sorted keys, and whether a string in it holds a mask.
 * Iterative: a body nests as deep as the mock admits. A string is hashed as its length and
 * its text (JSON.stringify of every turn's text cost as much again as the hash); one not
 * well formed (a lone surrogate, which UTF-8 cannot tell from another) as its JSON. SHA-1
 * is no defence here, only a name for a body the operator recorded: the fastest node offers.
 */
function canonicalDigest(value: unknown): { digest: string; masked: boolean } {
  const hash = createHash('sha1');
  let pending = '';
  const emit = (text: string) => {
    if (pending.length + text.length < PENDING_CHARS) pending += text;
    else {
      hash.update(pending);
      hash.update(text);
      pending = '';
    }
  };
  let masked = false;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (v instanceof Literal) emit(v.text);
    else if (typeof v === 'string') {
      if (!masked && v.includes('[redacted') && MASK.test(v)) masked = true;
      if (!LONE_SURROGATE.test(v)) {
        emit(`s${v.length}:`);
        emit(v);
      } else emit(`j${JSON.stringify(v)}`);
    } else if (Array.isArray(v)) {
      emit('[');
      stack.push(new Literal(']'));
      for (let i = v.length - 1; i >= 0; i--) {
        stack.push(v[i]);
        if (i > 0) stack.push(new Literal(','));
      }
    } else if (isObject(v)) {
      emit('{');
      stack.push(new Literal('}'));
      const keys = Object.keys(v).sort();
      for (let i = keys.length - 1; i >= 0; i--) {
        stack.push(v[keys[i]!]);
        stack.push(new Literal(`${i > 0 ? ',' : ''}${JSON.stringify(keys[i])}:`));
      }
    } else if (v === undefined) emit('u');
    else emit(JSON.stringify(v) ?? String(v));
  }
  hash.update(pending);
  return { digest: hash.digest('base64'), masked };
}

function digestText(text: string): string {
  return createHash('sha1').update(text).digest('base64');
}

function digestBody(body: unknown): BodyDigest {
  let restValue = body;
  let messages: unknown[] | undefined;
  if (isObject(body)) {
    const rest: Record<string, unknown> = {};
    for (const key of Object.keys(body)) {
      if (key === 'stream') continue;
      if (key === 'messages' && Array.isArray(body.messages)) continue;
      // defineProperty, not assignment: a `__proto__` key of parsed JSON is a key like any other.
      Object.defineProperty(rest, key, {
        value: body[key],
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    restValue = rest;
    if (Array.isArray(body.messages)) messages = body.messages;
  }
  const restForm = canonicalDigest(restValue);
  const rest = restForm.digest;
  const turns: string[] = [];
  const maskedTurns = new Set<number>();
  for (let i = 0; i < (messages?.length ?? 0); i++) {
    const form = canonicalDigest(messages![i]);
    turns.push(form.digest);
    if (form.masked) maskedTurns.add(i);
  }
  return {
    whole: digestText(`${rest}\n${messages === undefined ? '-' : turns.join(',')}`),
    rest,
    restValue,
    messages,
    turns,
    restMasked: restForm.masked,
    maskedTurns,
    masked: restForm.masked || maskedTurns.size > 0,
    stream: streamOf(body),
  };
}

/** Recorded requests are digested once, when first compared or prepared (prepareMatching). */
const recordedDigests = new WeakMap<ComparedRequest, BodyDigest>();

function recordedDigest(request: ComparedRequest): BodyDigest {
  let digest = recordedDigests.get(request);
  if (digest === undefined) {
    digest = digestBody(recordedBody(request));
    recordedDigests.set(request, digest);
  }
  return digest;
}

/**
 * Digests the recorded requests now, so that the first request to arrive does not wait for
 * all of them (the recordings of a long session add up to the square of its length).
 */
export function prepareMatching(candidates: readonly MatchCandidate[]): void {
  for (const candidate of candidates) recordedDigest(candidate.request);
}

/** Whether two values compare equal by walking them, a recorded mask matching any string. */
function equalMasked(recorded: unknown, arrived: unknown): boolean {
  const out: RequestDifference[] = [];
  bodyDifferences(recorded, arrived, false, 1, out);
  return out.length === 0;
}

/**
 * Comparisons of one arrived request: a recorded turn holding a mask is walked once per
 * place, however many recordings of a session repeat it.
 */
class Comparison {
  private readonly turnVerdicts = new Map<string, boolean>();
  constructor(readonly arrived: BodyDigest) {}

  turnMatches(recorded: BodyDigest, i: number): boolean {
    const digest = recorded.turns[i]!;
    if (digest === this.arrived.turns[i]) return true;
    if (!recorded.maskedTurns.has(i)) return false;
    const key = `${i}\n${digest}`;
    let verdict = this.turnVerdicts.get(key);
    if (verdict === undefined) {
      verdict = equalMasked(recorded.messages![i], this.arrived.messages![i]);
      this.turnVerdicts.set(key, verdict);
    }
    return verdict;
  }

  /** How many turns from the first the recording and the request have alike. */
  sharedTurns(recorded: BodyDigest): number {
    if (recorded.messages === undefined || this.arrived.messages === undefined) return 0;
    const shared = Math.min(recorded.turns.length, this.arrived.turns.length);
    let i = 0;
    while (i < shared && this.turnMatches(recorded, i)) i++;
    return i;
  }

  /** The body comparison of requestDifferences(candidate, arrived, 1), in time linear in the turns at most. */
  bodyMatches(recorded: BodyDigest): boolean {
    if (!recorded.masked) return recorded.whole === this.arrived.whole;
    if ((recorded.messages === undefined) !== (this.arrived.messages === undefined)) return false;
    if (recorded.turns.length !== this.arrived.turns.length) return false;
    if (recorded.rest !== this.arrived.rest) {
      if (!recorded.restMasked || !equalMasked(recorded.restValue, this.arrived.restValue)) return false;
    }
    for (let i = 0; i < recorded.turns.length; i++) if (!this.turnMatches(recorded, i)) return false;
    return true;
  }
}

function matches(candidate: MatchCandidate, arrived: ComparedRequest, comparison: Comparison): boolean {
  const recorded = candidate.request;
  const digest = recordedDigest(recorded);
  if (!comparison.bodyMatches(digest)) return false;
  if (recorded.method.toUpperCase() !== arrived.method.toUpperCase()) return false;
  const recordedPath = arrived.queryUnknown ? recorded.path.split('?')[0]! : recorded.path;
  if (!matchesMasked(recordedPath, arrived.path)) return false;
  // `stream` differing in what it asks for is a difference unless the reply converts.
  return digest.stream === comparison.arrived.stream || candidate.streamEither;
}

/**
 * The recordings `arrived` matches, in their order; when none, the nearest. `candidates` is
 * not empty. A request is digested once and each recording once (recordedDigest), so a
 * match costs a comparison of digests per recording, not a walk of each recorded body.
 */
export function matchRequest(candidates: readonly MatchCandidate[], arrived: ComparedRequest): MatchResult {
  const comparison = new Comparison(digestBody(arrived.body));
  const indices: number[] = [];
  for (let i = 0; i < candidates.length; i++) {
    if (matches(candidates[i]!, arrived, comparison)) indices.push(i);
  }
  if (indices.length > 0) return { kind: 'matched', indices };
  // Ranked by the turns shared from the first: an appended turn is one difference, so
  // counting differences alone named a session's first, shortest recording.
  let most = -1;
  let alike: number[] = [];
  for (let i = 0; i < candidates.length; i++) {
    const shared = comparison.sharedTurns(recordedDigest(candidates[i]!.request));
    if (shared > most) {
      most = shared;
      alike = [i];
    } else if (shared === most && alike.length < NEAREST_COUNTED) alike.push(i);
  }
  let nearest = alike[0]!;
  let best: RequestDifference[] | undefined;
  for (const i of alike) {
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
 * credential-named fields as `[redacted]` (the key itself, where the value sits under one), a
 * request target's credential query parameters redacted, and `secrets` (the key the client
 * presented, the mock's own) scrubbed wherever they appear, encoded too, before clipping: a
 * secret in a turn's text sits under no credential name.
 */
function shown(value: unknown, at: string, secrets: readonly string[]): string {
  if (value === undefined) return 'nothing';
  const key = /\.([A-Za-z_$][\w$]*)$|\["((?:[^"\\]|\\.)*)"\]$/.exec(at);
  const name = key?.[1] ?? (key?.[2] === undefined ? undefined : (JSON.parse(`"${key[2]}"`) as string));
  let safe: unknown;
  if (at === 'path' && typeof value === 'string') safe = redactTarget(value, secrets);
  else if (name !== undefined && typeof value === 'string' && isSecretName(name)) safe = REDACTED;
  else safe = redactBody(value, secrets);
  return clip(JSON.stringify(safe) ?? String(safe), SHOWN_CHARS);
}

/** `at $.messages[1].content: recorded "a", arrived "b"`, values clipped and redacted (see `shown`). */
export function describeRequestDifference(d: RequestDifference): string {
  return describeRequestDifferenceWithout(d, []);
}

/** describeRequestDifference with `secrets` scrubbed from both values (see `shown`). */
export function describeRequestDifferenceWithout(d: RequestDifference, secrets: readonly string[]): string {
  return `${d.at}: recorded ${shown(d.recorded, d.at, secrets)}, arrived ${shown(d.arrived, d.at, secrets)}`;
}
