import { bodyOfChunks } from '../../fixtures/chunks.js';
import type { RecordedResponse } from '../../fixtures/schema.js';
import {
  API_ERROR_TYPES,
  type ApiErrorType,
  type Message,
  MessageShape,
  STATUS_OF_ERROR_TYPE,
  StreamAccumulator,
  StreamErrorEvent,
} from '../../protocol/messages/index.js';
import { decodeFrames } from '../../protocol/sse/index.js';
import type { Reply } from './reply.js';

/**
 * A recorded 200 response as the request asks for it, where it was recorded in the other
 * mode: the spec answers `stream: true` with an event stream and anything else with one JSON
 * message, so a client must never see the other. A streamed recording is folded into its
 * message (an error event in it becomes that error's HTTP status, as the real API answers a
 * request it has not begun to stream; blocks the spec does not name are left out, as the
 * stream reducer skips them), and a JSON one is streamed as its events, every block kept. Undefined
 * when the recording is already in the mode asked for, or cannot be converted (an error
 * status, a stream cut before its end): it is served as recorded.
 */
export function recordingAsAsked(response: RecordedResponse, stream: boolean): Reply | undefined {
  if (response.status !== 200) return undefined;
  const type = (response.headers['content-type'] ?? '').toLowerCase();
  if (!stream && type.startsWith('text/event-stream')) return foldedStream(response);
  if (stream && type.startsWith('application/json')) return jsonMessage(response);
  return undefined;
}

function foldedStream(response: RecordedResponse): Reply | undefined {
  const { frames } = decodeFrames([bodyOfChunks(response.chunks)]);
  const acc = new StreamAccumulator();
  try {
    for (const frame of frames) acc.push(JSON.parse(frame.data));
    return { kind: 'message', message: acc.finish() };
  } catch (e) {
    if (!(e instanceof StreamErrorEvent)) return undefined;
    const errorType = e.body.error.type;
    const status = isApiErrorType(errorType) ? STATUS_OF_ERROR_TYPE[errorType] : 500;
    return { kind: 'error', status, errorType, message: e.body.error.message };
  }
}

function jsonMessage(response: RecordedResponse): Reply | undefined {
  let value: unknown;
  try {
    value = JSON.parse(bodyOfChunks(response.chunks).toString('utf8'));
  } catch {
    return undefined;
  }
  // Blocks the spec does not name (thinking...) are kept: the stream sends them as the real API does (blockStreamForm).
  const parsed = MessageShape.safeParse(value);
  return parsed.success ? { kind: 'message', message: parsed.data as Message } : undefined;
}

function isApiErrorType(type: string): type is ApiErrorType {
  return (API_ERROR_TYPES as readonly string[]).includes(type);
}
