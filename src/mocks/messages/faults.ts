import { z } from 'zod';
import { SendableHeaders } from './sendable-headers.js';

const count = z.number().int().nonnegative();
const ms = z.number().nonnegative().finite();

/**
 * An object that refuses keys it does not know: a plan is typed by hand (on the command
 * line, in a PUT body, in a fixture), and a misspelt fault dropped without a word served
 * a stream with no fault at all. The message names the known keys, so the typo shows.
 */
function strict<S extends z.ZodRawShape>(shape: S) {
  const known = Object.keys(shape).join(', ');
  return z.strictObject(shape, {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `unknown ${issue.keys.length === 1 ? 'key' : 'keys'} ${issue.keys.map((k) => JSON.stringify(k)).join(', ')} (expected one of: ${known})`
        : undefined,
  });
}

/**
 * The fields of Injection. The comment and unknown-event injections spread them into
 * their own strict object: Injection.extend would keep Injection's unknown-key message,
 * which names only `at` and `rate`.
 */
const injectionShape = {
  /** Gap positions (0 = before the first scripted frame); a position listed n times gets n frames in a row. */
  at: z.array(count).optional(),
  /** Probability, per gap, of one more injected frame there (seeded). */
  rate: z.number().min(0).max(1).optional(),
};
/**
 * Where a frame is injected: a list of gap positions, and/or a probability per gap.
 * Gap i is the point just before scripted frame i: 0 is before `message_start`, and
 * the frame count is after the last frame.
 */
export const Injection = strict(injectionShape);
export type Injection = z.infer<typeof Injection>;

export const MALFORMATIONS = ['invalid-json', 'type-mismatch', 'no-event-line', 'garbage-line'] as const;

/**
 * The faults a mock messages stream can be served with. Every random choice is derived
 * from the seed, so a plan with a seed always produces the same bytes, cuts and timings.
 *
 * Frame positions count the *scripted* frames only (the events of the message, or the
 * frames of a raw reply), never the injected ones (pings, comments, unknown events), so
 * a position means the same thing whatever else is injected.
 *
 * `httpError` and `headersDelayMs` apply to buffered replies too; everything else shapes
 * the SSE stream of a streamed reply.
 */
export const FaultPlan = strict({
  /**
   * Seed for every random choice of this plan. Absent: the service's seed. Either way
   * the request's index is mixed in, so two requests get different but reproducible cuts.
   */
  seed: z.number().int().optional(),

  /**
   * Re-chunk the byte stream. `random`: every write is minBytes..maxBytes long (default
   * 1..16), cut at arbitrary byte offsets, so cuts land inside UTF-8 characters, between
   * CR and LF, inside field names. `fixed`: every write is `size` bytes (the last of a
   * burst may be shorter). Absent: frames are joined into large writes (fast path).
   */
  chunking: z
    .discriminatedUnion('mode', [
      strict({
        mode: z.literal('random'),
        minBytes: z.number().int().positive().optional(),
        maxBytes: z.number().int().positive().optional(),
      }),
      strict({ mode: z.literal('fixed'), size: z.number().int().positive() }),
    ])
    .optional(),
  /** Also cut between the CR and the LF of every CRLF line ending (use with lineEnding 'crlf'). */
  splitCrLf: z.boolean().optional(),
  /** Also cut inside every multi-byte UTF-8 character (after its first byte). */
  splitUtf8: z.boolean().optional(),

  /** Line-ending dialect of the whole stream: LF (default), CRLF or lone CR; all valid SSE. */
  lineEnding: z.enum(['lf', 'crlf', 'cr']).optional(),
  /** Start the stream with a UTF-8 byte order mark (which an SSE decoder must strip). */
  bom: z.boolean().optional(),
  /** Split each frame's JSON over several `data:` lines (a decoder joins them with LF). */
  multiLineData: z.boolean().optional(),
  /** Give every scripted frame an `id:` line (clients of this API ignore it). */
  idLines: z.boolean().optional(),

  /** Inject `event: ping` frames, anywhere, including before `message_start`. */
  pings: Injection.optional(),
  /** Inject comment lines (`: text` + blank line), which every SSE client must ignore. */
  comments: strict({ ...injectionShape, text: z.string().optional() }).optional(),
  /**
   * Inject frames with an event name the spec does not list (and `data` whose `type`
   * is that name). Clients of the real API must ignore unknown events.
   */
  unknownEvents: strict({ ...injectionShape, name: z.string().min(1).optional() }).optional(),

  /**
   * Delay before each scripted frame, in ms. A number applies before every frame; an
   * array is a schedule, entry i before frame i (frames past its end get no delay).
   * Delays below 1 ms accumulate, so a long stream keeps the average rate.
   */
  delayMs: z.union([ms, z.array(ms)]).optional(),
  /** Delay before the response headers (what the SDK's request timeout covers), in ms. */
  headersDelayMs: ms.optional(),
  /**
   * Pause after `afterFrame` scripted frames: for `ms` milliseconds, or, without `ms`,
   * until the client goes away (what clients without an idle timeout hang on).
   */
  stall: strict({ afterFrame: count, ms: ms.optional() }).optional(),
  /**
   * During every pause (delay or stall) longer than this, send an `event: ping` frame
   * every this many ms, as the real API does during long pauses. Absent: the service's
   * `pingIntervalMs`; neither: no keep-alive.
   */
  keepAliveMs: z.number().positive().finite().optional(),

  /**
   * After this many scripted frames, destroy the connection: the earlier bytes are
   * written and drained first, then the socket is destroyed (no HTTP chunked terminator),
   * so the client sees a cut mid-stream and never a failure before the headers.
   */
  disconnectAfterFrame: count.optional(),
  /**
   * After `atFrame` scripted frames (0: as the very first frame), send the real API's
   * mid-stream error event and end the stream:
   * `event: error` / `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":...}`.
   */
  errorEvent: strict({
    atFrame: count,
    errorType: z.string().min(1).optional(),
    message: z.string().optional(),
  }).optional(),
  /**
   * Answer with this HTTP error instead of the reply (before any stream), with the real
   * API's error body. `retryAfterS` sets `retry-after` (default 1 for 429), `retryAfterMs`
   * sets `retry-after-ms`; `times` limits the error to the first N requests served with
   * this plan, so a client's retries can succeed. The service's error is answered before
   * the scenario is asked, so it uses up no scripted or replayed reply: the retry gets the
   * reply the first attempt would have had. A reply's own error is known only once the
   * scenario has chosen that reply.
   */
  httpError: strict({
    status: z.number().int().min(400).max(599),
    errorType: z.string().min(1).optional(),
    message: z.string().optional(),
    retryAfterS: z.number().nonnegative().optional(),
    retryAfterMs: z.number().nonnegative().optional(),
    times: z.number().int().positive().optional(),
    headers: SendableHeaders.optional(),
  }).optional(),

  /**
   * Break scripted frame `atFrame`: `invalid-json` (data is not JSON), `type-mismatch`
   * (the event line names another type than the data's `type`; `eventName` picks it),
   * `no-event-line` (a data-only frame), `garbage-line` (a line that is no SSE field
   * inside the frame, which a decoder must ignore).
   */
  malformed: z
    .array(strict({ atFrame: count, kind: z.enum(MALFORMATIONS), eventName: z.string().min(1).optional() }))
    .optional(),
  /** Leave out the `message_stop` frame; the response then ends normally. */
  omitMessageStop: z.boolean().optional(),
});
export type FaultPlan = z.infer<typeof FaultPlan>;
export type Malformation = (typeof MALFORMATIONS)[number];

/** A reply's own faults layered over the service's: the reply's fields win. */
export function mergeFaults(base: FaultPlan | undefined, over: FaultPlan | undefined): FaultPlan | undefined {
  if (base === undefined) return over;
  if (over === undefined) return base;
  return { ...base, ...over };
}
