import { parseJsonBounded } from '../../protocol/json/index.js';
import { Message, type MessageRequest, StreamProtocolError } from '../../protocol/messages/index.js';
import {
  AbortError,
  BodyLimitError,
  BodyTimeoutError,
  bodyTooLarge,
  ConnectionError,
  IdleTimeoutError,
  isBodyTimeout,
  StreamError,
} from './errors.js';
import { bodyTimeoutMessage, openMessagesResponse } from './exchange.js';
import { type MessagesClientOptions, type ResolvedOptions, resolveOptions } from './options.js';
import { MessageStream } from './stream.js';

export interface RequestOptions {
  /** Aborting closes the connection and rejects with an AbortError. */
  signal?: AbortSignal;
}

function issues(error: { issues: { path: PropertyKey[]; message: string }[] }): string {
  return error.issues.map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`).join('; ');
}

/**
 * Reference client of `POST {base_url}/v1/messages`: sends `x-api-key`, the version
 * header and JSON; retries what is safe to retry; reads streams through the shared SSE
 * decoder and stream reducer; never hangs on a silent body (idle watchdog).
 */
export class MessagesClient {
  readonly options: Readonly<ResolvedOptions>;

  /** Throws MissingApiKeyError when no key is configured, before anything is sent. */
  constructor(options?: MessagesClientOptions) {
    this.options = resolveOptions(options);
  }

  /**
   * The reply as a message: buffered, or, when `request.stream` is true, streamed and
   * reduced. A 200 buffered body that is not a message is a StreamError ("malformed
   * response body"): no HTTP status was wrong, the payload was.
   */
  async create(request: MessageRequest, options: RequestOptions = {}): Promise<Message> {
    if (request.stream === true) return this.stream(request, options).finalMessage();
    const opened = await openMessagesResponse(this.options, JSON.stringify(request), false, options.signal);
    const { reader, first, status, requestId } = opened;
    reader.idleError = (ms) =>
      new IdleTimeoutError(ms, `response body idle for ${ms} ms after ${reader.bytes} bytes`);
    reader.bodyTimeoutError = (ms) =>
      new BodyTimeoutError(ms, bodyTimeoutMessage(ms, `after ${reader.bytes} bytes`, false));
    let body: Buffer;
    try {
      body = first === null ? Buffer.alloc(0) : Buffer.concat([first, await reader.readAll()]);
    } catch (error) {
      if (error instanceof AbortError) throw error;
      if (error instanceof BodyLimitError) throw bodyTooLarge(error, { status, requestId });
      // No stream here: a body that stalls or breaks off is a connection problem.
      const reason = isBodyTimeout(error)
        ? error.message
        : `the response body broke off after ${reader.bytes} bytes: ${(error as Error).message}`;
      throw new ConnectionError(reason, error, requestId);
    }
    const json = parseJsonBounded(body.toString('utf8'), { maxLength: this.options.maxBodyBytes });
    if (!json.ok) throw malformedBody(`not JSON that can be read (${json.message})`, status, requestId);
    const parsed = Message.safeParse(json.value);
    if (!parsed.success) throw malformedBody(issues(parsed.error), status, requestId);
    return parsed.data;
  }

  /** The reply as a stream of events (`stream: true` is sent whatever the request says). */
  stream(request: MessageRequest, options: RequestOptions = {}): MessageStream {
    const body = JSON.stringify(request.stream === true ? request : { ...request, stream: true });
    return new MessageStream(
      () => openMessagesResponse(this.options, body, true, options.signal),
      options.signal,
    );
  }
}

function malformedBody(detail: string, status: number, requestId: string | undefined): StreamError {
  const cause = new StreamProtocolError(
    'shape',
    'a message response body (id, type, role, model, content, stop_reason, stop_sequence, usage)',
    detail,
    0,
  );
  return new StreamError(`malformed response body: ${detail}`, cause, { status, requestId });
}
