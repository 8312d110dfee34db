import type { ErrorBody } from './errors.js';

/**
 * What went wrong in a message stream:
 * - order: an event arrived in a state that does not allow it (Events rule 1);
 * - index: a block event names another index than the open block, or indexes skip;
 * - delta-type: a delta that does not fit its block (text_delta on a tool_use block...);
 * - json: a tool_use block's concatenated partial_json is not a JSON object (rule 3);
 * - shape: an event's data does not have the documented shape;
 * - truncated: the stream ended before message_stop;
 * - error-event: the service sent an `error` event.
 */
export type StreamViolationKind =
  | 'order'
  | 'index'
  | 'delta-type'
  | 'json'
  | 'shape'
  | 'truncated'
  | 'error-event';

export class StreamProtocolError extends Error {
  override readonly name = 'StreamProtocolError';
  constructor(
    readonly kind: StreamViolationKind,
    readonly expected: string,
    readonly actual: string,
    /** 0-based position of the offending event among the stream's events (pings included). */
    readonly eventIndex: number,
  ) {
    super(`${kind} at event ${eventIndex}: expected ${expected}, got ${actual}`);
  }
}

/** The service reported an error inside a 200 stream (`event: error`). */
export class StreamErrorEvent extends StreamProtocolError {
  constructor(
    readonly body: ErrorBody,
    eventIndex: number,
  ) {
    super('error-event', 'no error event', `${body.error.type}: ${body.error.message}`, eventIndex);
  }
}
