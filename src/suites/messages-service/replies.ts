import type { SseFrame } from '../../protocol/sse/index.js';

/** Response headers, names lower-cased. */
export type HeaderMap = Readonly<Record<string, string>>;

/** What the service answered to a buffered request (or to any request read as a whole body). */
export interface BufferedReply {
  readonly status: number;
  readonly headers: HeaderMap;
  readonly text: string;
  /** The body parsed as JSON; undefined when it is not JSON (see `jsonError`). */
  readonly json: unknown;
  readonly jsonError: string | undefined;
}

/** What the service answered to a `stream: true` request. */
export interface StreamedReply {
  readonly status: number;
  readonly headers: HeaderMap;
  /** Frames decoded from a 200 body (whatever its content type: the official SDK ignores it too). */
  readonly frames: readonly SseFrame[];
  /** Fields of a last frame not closed by a blank line ('' when the stream ended cleanly). */
  readonly unterminated: string;
  /** Lines that are not SSE fields. */
  readonly invalidLines: readonly string[];
  /** The body of a non-200 reply, read as text. */
  readonly text: string;
  /** The client aborted the request on purpose (`abortAfter`). */
  readonly aborted: boolean;
  /** The body broke off (connection reset, size cap) before the service ended it. */
  readonly readError: string | undefined;
  /**
   * Set (to readError's text) when the body broke off at a limit of wirecheck's own (its
   * bytes, the frames, comments or invalid lines kept, an SSE line or frame): the service had
   * not ended the stream, so its end was never seen and no rule about the end can be judged.
   */
  readonly cutByWirecheck?: string;
  /** When each frame arrived, in ms since the body's first byte (parallel to `frames`), for reports. */
  readonly frameTimesMs?: readonly number[];
  /** Comment lines, with when they arrived and how many frames came before them, for reports. */
  readonly comments?: readonly StreamComment[];
}

export interface StreamComment {
  readonly text: string;
  readonly atMs: number;
  /** Frames decoded before this comment. */
  readonly afterFrames: number;
}

export function headerOf(headers: HeaderMap, name: string): string | undefined {
  return headers[name.toLowerCase()];
}

/** `application/json; charset=utf-8` -> `application/json`. */
export function mediaTypeOf(headers: HeaderMap): string | undefined {
  const value = headerOf(headers, 'content-type');
  return value?.split(';')[0]?.trim().toLowerCase();
}

export function abbreviate(s: string, max = 300): string {
  return s.length <= max ? JSON.stringify(s) : `${JSON.stringify(s.slice(0, max))}... (${s.length} chars)`;
}

/** One line naming an HTTP reply for failure messages: status, content type, start of the body. */
export function describeReply(reply: { status: number; headers: HeaderMap; text: string }): string {
  const type = headerOf(reply.headers, 'content-type') ?? 'no content-type';
  return `HTTP ${reply.status} (${type}) ${abbreviate(reply.text, 200)}`;
}
