import type http from 'node:http';
import type { FrameItem } from '../../harness/results.js';
import { clip } from '../../protocol/clip.js';
import { parseJsonBounded } from '../../protocol/json/index.js';
import {
  resolveEndpoint,
  SESSION_QUERY_PARAM,
  sessionIdOf,
  sessionParamOf,
  TOOL_SSE_EVENTS,
} from '../../protocol/mcp/index.js';
import { createFrameDecoder, type SseLimits } from '../../protocol/sse/index.js';
import { cappedAnswers } from './answer-cap.js';
import type { Channel, PostOutcome } from './channel.js';
import { SSE_WORDS } from './diagnosis.js';
import { openGet, post, type TargetHeaders } from './http.js';
import { KeepAliveBeats } from './keep-alive-beats.js';
import { RpcPeer } from './peer.js';
import { isKeepAlive } from './rules.js';

/**
 * What an SSE channel keeps of the frames it saw, as evidence: the first MAX_KEPT_FRAMES
 * frames and comments, each with at most MAX_FRAME_DATA characters of data (the peer still
 * gets every message whole). Later frames are counted in the diagnosis, not kept, but for
 * keep-alives, which the keep-alive check judges by (KeepAliveBeats, thinned).
 */
export const MAX_KEPT_FRAMES = 10_000;
export const MAX_FRAME_DATA = 64 * 1024;
/**
 * Characters of frame data an SSE channel keeps in all: past them a frame keeps a preview of
 * FRAME_PREVIEW_CHARS (10,000 frames of 64 KiB would hold 640 Mi characters).
 */
export const MAX_KEPT_FRAME_CHARS = 4 * 1024 * 1024;
const FRAME_PREVIEW_CHARS = 200;

/** One SSE frame or comment as the harness saw it, with its absolute time. */
export interface SeenFrame {
  readonly at: number;
  readonly event: string | undefined;
  readonly data: string;
  readonly comment?: true;
}

/** An open SSE session: the raw stream (status, headers, every frame) and its POST endpoint. */
export interface SseChannel extends Channel {
  readonly transport: 'sse';
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  /** performance.now() when the response headers arrived. */
  readonly openedAt: number;
  readonly frames: SeenFrame[];
  /** The POST endpoint of the first `endpoint` event, once it came (undefined while waiting or when none). */
  endpoint(): URL | undefined;
  /** Wait up to `ms` for the first event; resolves with it (undefined when none came). */
  firstEvent(ms: number): Promise<SeenFrame | undefined>;
  /** POST a text to the endpoint or to another URL, with extra headers. */
  postTo(url: URL, text: string, headers?: Record<string, string>, timeoutMs?: number): Promise<PostOutcome>;
  /**
   * The frames kept, then the keep-alives seen past them (thinned: KeepAliveBeats), with times
   * relative to the response headers: report evidence, and what the keep-alive check judges.
   */
  frameItems(): FrameItem[];
  /** Closes the stream; `gone()` says so from the call on, before the returned promise settles. */
  close(): Promise<void>;
}

export interface SseOpenOptions {
  readonly label: string;
  /** Budget for the response headers and, separately, for the first event. */
  readonly timeoutMs: number;
  /** Budget for each POST. */
  readonly postTimeoutMs: number;
  /** Line and frame limits of the stream (default DEFAULT_SSE_LIMITS, 16 MiB each). */
  readonly limits?: SseLimits;
  /** `--header`s, sent with the GET and every POST. */
  readonly targetHeaders?: TargetHeaders;
}

/** Why a stream could not be opened as a session (status, content type, no endpoint event). */
export class SseOpenError extends Error {
  override readonly name = 'SseOpenError';
  /** No response headers within the budget (a busy server looks so), not a refused or reset connection. */
  constructor(
    message: string,
    readonly timedOut: boolean,
  ) {
    super(message);
  }
}

/**
 * GET the stream URL with `Accept: text/event-stream` and read frames as they come. The
 * promise resolves once the response headers arrived; the session is usable once
 * `endpoint()` is set (await `firstEvent`). Message events feed the peer, their data parsed
 * within 512 levels of nesting. A line or frame past the decoder's limits is a protocol
 * failure that ends the session: the stream is closed and `gone()` names the limit.
 */
export async function openSseChannel(streamUrl: string, options: SseOpenOptions): Promise<SseChannel> {
  const url = new URL(streamUrl);
  const opened = await openGet(
    url,
    { accept: 'text/event-stream' },
    options.timeoutMs,
    options.targetHeaders,
  );
  if ('problem' in opened) throw new SseOpenError(`GET ${streamUrl}: ${opened.problem}`, opened.timedOut);
  const { req, res } = opened;
  const openedAt = performance.now();
  const frames: SeenFrame[] = [];
  let endpoint: URL | undefined;
  let events = 0;
  let ended: string | undefined;
  const firstEventWaiters: ((f: SeenFrame | undefined) => void)[] = [];
  const peer: RpcPeer = new RpcPeer(
    options.label,
    cappedAnswers((text) => sendText(text)),
    SSE_WORDS,
  );
  const beats = new KeepAliveBeats<SeenFrame>();
  /** A frame or comment as seen: kept among the first MAX_KEPT_FRAMES, past them only a keep-alive, thinned. */
  const seeFrame = (event: string | undefined, data: string, comment: boolean): SeenFrame => {
    const kept = frames.length < MAX_KEPT_FRAMES;
    // Past the kept frames a frame is only looked at: it draws nothing from the channel's budget.
    const seen: SeenFrame = {
      at: performance.now(),
      event,
      data: kept ? clipped(data) : clip(data, FRAME_PREVIEW_CHARS),
      ...(comment ? { comment: true as const } : {}),
    };
    const beat = comment || (data.includes('ping') && isKeepAlive(seen));
    if (kept) {
      frames.push(seen);
      if (beat) beats.keptElsewhere(seen);
    } else if (beat) beats.see(seen);
    return seen;
  };
  let frameChars = 0;
  const clipped = (data: string) => {
    const size = Math.min(data.length, MAX_FRAME_DATA);
    const whole = frameChars + size <= MAX_KEPT_FRAME_CHARS && peer.keptText.take(size);
    const kept = clip(data, whole ? MAX_FRAME_DATA : FRAME_PREVIEW_CHARS);
    frameChars += kept.length;
    return kept;
  };
  const decoder = createFrameDecoder({
    ...(options.limits === undefined ? {} : { limits: options.limits }),
    onFrame(frame) {
      const seen = seeFrame(frame.event, frame.data, false);
      events += 1;
      if (events === 1) for (const w of firstEventWaiters.splice(0)) w(seen);
      const name = frame.event ?? 'message';
      if (name === TOOL_SSE_EVENTS.endpoint && endpoint === undefined) {
        try {
          endpoint = resolveEndpoint(frame.data, streamUrl);
        } catch {
          // an endpoint that is not a URL: the endpoint check reports it
        }
      } else if (name === TOOL_SSE_EVENTS.message) {
        const parsed = parseJsonBounded(frame.data);
        if (parsed.ok) peer.receive(frame.data, parsed.value, true);
        else {
          peer.receive(frame.data, undefined, false, {
            kind: parsed.reason === 'too-deep' ? 'too-deep' : 'not-json',
            detail: parsed.message,
          });
        }
      }
    },
    onComment(comment) {
      seeFrame(undefined, comment, true);
    },
    onLimit(error) {
      peer.wire.fatal('over-limit', error.head, error.message);
      end(`wirecheck closed the stream: ${error.message}`);
      req.destroy();
      res.destroy();
    },
  });
  res.on('data', (chunk: Buffer) => {
    if (peer.wire.stopped) return;
    peer.wire.bytesIn(chunk);
    decoder.feed(chunk);
  });
  const end = (why: string) => {
    ended ??= why;
    for (const w of firstEventWaiters.splice(0)) w(undefined);
  };
  res.on('end', () => {
    decoder.end();
    end('the server ended the stream');
  });
  res.on('error', (e) => end(`the stream failed: ${e.message}`));
  res.on('close', () => end('the stream was closed'));

  const postTo = (target: URL, text: string, headers?: Record<string, string>, timeoutMs?: number) =>
    post(target, text, {
      timeoutMs: timeoutMs ?? options.postTimeoutMs,
      ...(headers ? { headers } : {}),
      ...(options.targetHeaders === undefined ? {} : { targetHeaders: options.targetHeaders }),
    });

  async function sendText(text: string): Promise<PostOutcome | undefined> {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      value = undefined;
    }
    peer.recordSent(text, value);
    if (endpoint === undefined) {
      return { status: undefined, body: '', contentType: undefined, problem: 'no endpoint event yet' };
    }
    return postTo(endpoint, text);
  }

  const channel: SseChannel = {
    transport: 'sse',
    peer,
    status: res.statusCode ?? 0,
    headers: res.headers,
    openedAt,
    frames,
    endpoint: () => endpoint,
    firstEvent(ms) {
      const first = frames.find((f) => !f.comment);
      if (first !== undefined || ended !== undefined) return Promise.resolve(first);
      return new Promise((resolve) => {
        const timer = setTimeout(() => resolve(undefined), ms);
        firstEventWaiters.push((f) => {
          clearTimeout(timer);
          resolve(f);
        });
      });
    },
    postTo,
    sendText,
    gone: () => ended,
    diagnosis: () => peer.wire.diagnosis(),
    async close() {
      end('the harness closed the stream');
      peer.keptText.release();
      req.destroy();
      res.destroy();
    },
    frameItems: () =>
      [...frames, ...beats.view()].map((f) => {
        const item: FrameItem = { atMs: Math.round(f.at - openedAt), data: f.data };
        if (f.event !== undefined) item.event = f.event;
        if (f.comment) item.comment = true;
        return item;
      }),
  };
  return channel;
}

/** The session id an SSE channel's endpoint names, or undefined. */
export function sessionOf(channel: SseChannel): string | undefined {
  const e = channel.endpoint();
  return e === undefined ? undefined : sessionIdOf(e);
}

/**
 * The endpoint URL with the query parameter that carries its session (sessionParamOf:
 * `sessionId`, or `session_id` where the server named it so) replaced, or removed when `id`
 * is undefined.
 */
export function withSession(endpoint: URL, id: string | undefined): URL {
  const url = new URL(endpoint);
  const name = sessionParamOf(endpoint) ?? SESSION_QUERY_PARAM;
  if (id === undefined) url.searchParams.delete(name);
  else url.searchParams.set(name, id);
  return url;
}
