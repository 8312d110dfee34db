import { parseJsonBounded } from '../../protocol/json/index.js';
import {
  type Message,
  StreamAccumulator,
  type StreamEvent,
  StreamProtocolError,
} from '../../protocol/messages/index.js';
import { createFrameDecoder, type FrameDecoder, type SseFrame } from '../../protocol/sse/index.js';

/** Distinct unknown event names remembered (their count is always kept). */
const MAX_UNKNOWN_NAMES = 32;

function abbreviate(s: string): string {
  return s.length <= 120 ? JSON.stringify(s) : `${JSON.stringify(s.slice(0, 120))}... (${s.length} chars)`;
}

/**
 * The pure core of stream consumption: response body bytes -> SSE frames (the shared
 * decoder, 16 MiB lines and frames) -> events (JSON within 512 levels, type = event name) ->
 * the final message (the shared
 * StreamAccumulator). Throws StreamProtocolError at the first violation; `frames` is then
 * the 1-based number of the frame at fault.
 *
 * Frames are filtered as the official SDK does: no `event:` line -> skipped (counted);
 * `ping` -> skipped; an unknown event name -> ignored (counted), so neither is parsed.
 */
export class MessageFrameReducer {
  /** Frames decoded so far, every kind included. */
  frames = 0;
  /** Frames without an `event:` line (skipped). */
  framesWithoutEvent = 0;
  /** Frames with an event name outside the spec's list (ignored). */
  unknownEventCount = 0;
  /** Up to 32 distinct unknown event names, in arrival order. */
  readonly unknownEvents: string[] = [];
  /** Event name of the last frame decoded. */
  lastEvent: string | undefined;

  private readonly accumulator = new StreamAccumulator();
  private readonly decoder: FrameDecoder;
  private sink: StreamEvent[] | undefined;

  constructor() {
    this.decoder = createFrameDecoder({
      onFrame: (frame) => this.onFrame(frame),
      // A line or frame past the decoder's limits (16 MiB) fails the stream where it is.
      onLimit: (error) => {
        throw new StreamProtocolError(
          'shape',
          `SSE lines and frames within the ${error.limit} limit of ${error.value} characters`,
          error.message,
          this.accumulator.eventCount,
        );
      },
    });
  }

  /** Feed body bytes; events that were accepted are appended to `sink` when given. */
  feed(chunk: Uint8Array, sink?: StreamEvent[]): void {
    this.sink = sink;
    this.decoder.feed(chunk);
  }

  /** The body ended: the final message, or `truncated` when message_stop never came. */
  end(): Message {
    const unterminated = this.decoder.end();
    if (!this.accumulator.ended && unterminated !== '') {
      throw new StreamProtocolError(
        'truncated',
        'frames ended by a blank line, up to message_stop',
        `end of stream inside an unterminated frame ${abbreviate(unterminated)}`,
        this.accumulator.eventCount,
      );
    }
    return this.accumulator.finish();
  }

  /** Events accepted by the accumulator (frames with JSON data). */
  get eventCount(): number {
    return this.accumulator.eventCount;
  }

  private onFrame(frame: SseFrame): void {
    const number = ++this.frames;
    const name = frame.event;
    this.lastEvent = name;
    // Deltas first: they are nearly every frame.
    switch (name) {
      case 'content_block_delta':
      case 'message_start':
      case 'content_block_start':
      case 'content_block_stop':
      case 'message_delta':
      case 'message_stop':
      case 'error':
        break;
      case undefined:
        this.framesWithoutEvent++;
        return;
      case 'ping':
        return;
      default:
        this.unknownEventCount++;
        if (this.unknownEvents.length < MAX_UNKNOWN_NAMES && !this.unknownEvents.includes(name)) {
          this.unknownEvents.push(name);
        }
        return;
    }
    const parsed = parseJsonBounded(frame.data);
    if (!parsed.ok) {
      throw new StreamProtocolError(
        'shape',
        `JSON data in frame ${number} (event ${name})`,
        `${parsed.message} in ${abbreviate(frame.data)}`,
        this.accumulator.eventCount,
      );
    }
    const data = parsed.value;
    const type = data !== null && typeof data === 'object' ? (data as { type?: unknown }).type : undefined;
    if (type !== name) {
      throw new StreamProtocolError(
        'shape',
        `data.type ${JSON.stringify(name)} in frame ${number} (the JSON type equals the event name)`,
        type === undefined ? `data ${abbreviate(frame.data)}` : `type ${JSON.stringify(type)}`,
        this.accumulator.eventCount,
      );
    }
    this.accumulator.push(data);
    this.sink?.push(data as StreamEvent);
  }
}
