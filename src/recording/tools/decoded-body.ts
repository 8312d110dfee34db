import { createReplyDecoder, type ReplyCoding, type ReplyDecoder, replyCodingOf } from '../decoded-reply.js';
import { DISK_QUEUE_LIMIT } from '../relay-server.js';
import { RECORD_LIMIT } from './store.js';

/*
 * The tool recorders ask the server for `identity`, as the messages proxy does, and a server
 * may compress all the same (an SSE stream, a JSON or event-stream POST answer): recorded as
 * it came, the session would hold bytes no scrub reads (a token the server echoes written to
 * the file) and the recorder's own SSE and JSON parsing would find nothing in them. So the
 * recording reads the body decoded, over the messages proxy's decoder (decoded-reply.ts); the
 * client still gets the server's bytes unchanged.
 */

export interface RecordedBodyEvents {
  /** Decoded bytes (the bytes as they came, for a body without a coding), to be recorded. */
  data(decoded: Buffer): void;
  /** The recording of the body stopped (`why` is set): what follows is relayed only. */
  stopped?(): void;
}

/** One upstream body as the recording reads it. */
export interface RecordedBody {
  readonly coding: ReplyCoding;
  /** An upstream chunk as it came; false while the decoder's input is full (wait for `drained`). */
  push(chunk: Buffer): boolean;
  drained(): Promise<void>;
  /** The body ended (`cut`: broke off): settles once every byte decoded from it was given. */
  end(cut?: boolean): Promise<void>;
  /** Stop recording the body (what follows is relayed only), saying why; the first reason stays. */
  stop(why: string): void;
  /** Why the recording of the body stopped; undefined while it is recorded whole. */
  readonly why: string | undefined;
  /** Bytes as they came from the upstream that were relayed but not recorded. */
  readonly unrecorded: number;
}

export interface RecordedBodyOptions {
  /** The body's Content-Encoding header. */
  readonly header: string | string[] | undefined;
  /** What the body is, for the reasons given (e.g. `the event stream`). */
  readonly what: string;
  /** Most decoded bytes recorded (default RECORD_LIMIT): past it nothing more is inflated. */
  readonly limit?: number;
  /** The journal the body goes to: decoding waits while more than 8 MiB wait for its disk. */
  readonly log?: { readonly queuedBytes: number; drained(): Promise<void> };
}

export function recordedBody(options: RecordedBodyOptions, on: RecordedBodyEvents): RecordedBody {
  const header = Array.isArray(options.header) ? options.header.join(', ') : options.header;
  const coding = replyCodingOf(header);
  const limit = options.limit ?? RECORD_LIMIT;
  let why: string | undefined;
  let unrecorded = 0;
  let decodedBytes = 0;
  let lastChunk = 0;
  let decoder: ReplyDecoder | undefined;
  const stop = (reason: string) => {
    if (why !== undefined) return;
    why = reason;
    decoder?.stop();
    on.stopped?.();
  };
  if (coding.kind === 'undecoded')
    why = `wirecheck record: ${options.what} came with Content-Encoding: ${coding.header}, and ${coding.why}: it was relayed to the client but not recorded`;
  else if (coding.kind === 'decoded') {
    const encoded = `${options.what} (Content-Encoding: ${coding.header})`;
    decoder = createReplyDecoder(coding.codings, {
      data(decoded) {
        if (why !== undefined) return;
        // A small body that inflates to gigabytes (a bomb) costs the limit, never more.
        if (decodedBytes + decoded.length > limit) {
          // At least the chunk that passed it was not recorded.
          unrecorded += lastChunk;
          stop(
            `wirecheck record: ${encoded} passed the recording limit of ${limit} bytes once decoded, where decoding stopped: the rest was relayed to the client but not recorded`,
          );
          return;
        }
        decodedBytes += decoded.length;
        on.data(decoded);
        const log = options.log;
        if (log !== undefined && log.queuedBytes > DISK_QUEUE_LIMIT && decoder !== undefined) {
          const paused = decoder;
          paused.pause();
          void log.drained().then(() => paused.resume());
        }
      },
      failed(error) {
        // At least the chunk it failed in was not recorded (how much of it zlib read is not told).
        if (why === undefined) unrecorded += lastChunk;
        stop(
          `wirecheck record: ${encoded} does not decode (${error.message}): the recording stops at the ${decodedBytes} bytes decoded before it; the rest was relayed to the client but not recorded`,
        );
      },
    });
  }
  return {
    coding,
    push(chunk) {
      if (why !== undefined) {
        unrecorded += chunk.length;
        return true;
      }
      if (decoder === undefined) {
        on.data(chunk);
        return true;
      }
      lastChunk = chunk.length;
      return decoder.write(chunk);
    },
    drained: () => decoder?.drained() ?? Promise.resolve(),
    end(cut = false) {
      if (decoder === undefined) return Promise.resolve();
      if (cut) decoder.cut();
      else decoder.end();
      return decoder.done;
    },
    stop,
    get why() {
      return why;
    },
    get unrecorded() {
      return unrecorded;
    },
  };
}
