// A messages-client target built on Effect's Anthropic client (`AnthropicClient` of
// @effect/ai-anthropic, on @effect/platform's fetch client): an implementation of the messages
// API that shares no code with the official SDK (its own HTTP client, SSE parser and schemas).
// The adapter hands the request on stdin to `createMessage` or `createMessageStream`, builds the
// final message of a stream from the events Effect decoded, and prints it in the buffered
// response shape:
//   wirecheck test messages-client --client "node examples/effect-anthropic-client.mjs"
import * as AnthropicClient from '@effect/ai-anthropic/AnthropicClient';
import { FetchHttpClient } from '@effect/platform';
import { Cause, Config, Effect, Exit, Layer, Stream } from 'effect';

function fail(kind, message, status) {
  process.stdout.write(`${JSON.stringify({ error: { kind, status, message } })}\n`);
  process.exitCode = 1;
}

/**
 * The final message of a stream, from its decoded events (the state a reader of the stream keeps).
 * Effect's stream ends quietly when the connection closes before `message_stop`; the adapter,
 * which builds the message, refuses a message that never ended.
 */
function collect(events) {
  let message;
  let stopped = false;
  const inputs = new Map();
  return Stream.runForEach(events, (event) =>
    Effect.sync(() => {
      switch (event.type) {
        case 'message_start':
          message = { ...event.message, content: [] };
          break;
        case 'content_block_start':
          message.content[event.index] = { ...event.content_block };
          if (event.content_block.type === 'tool_use') inputs.set(event.index, '');
          break;
        case 'content_block_delta': {
          const block = message.content[event.index];
          if (event.delta.type === 'text_delta') block.text += event.delta.text;
          else if (event.delta.type === 'input_json_delta')
            inputs.set(event.index, inputs.get(event.index) + event.delta.partial_json);
          break;
        }
        case 'content_block_stop':
          if (inputs.has(event.index)) {
            const json = inputs.get(event.index);
            message.content[event.index].input = json === '' ? {} : JSON.parse(json);
          }
          break;
        case 'message_delta':
          message.stop_reason = event.delta.stop_reason ?? message.stop_reason;
          message.stop_sequence = event.delta.stop_sequence ?? message.stop_sequence;
          message.usage = { ...message.usage, ...definedOf(event.usage) };
          break;
        case 'message_stop':
          stopped = true;
          break;
        case 'error':
          throw new StreamError(`error event: ${JSON.stringify(event.error)}`);
      }
    }),
  ).pipe(
    Effect.flatMap(() =>
      stopped
        ? Effect.succeed(message)
        : Effect.fail(new StreamError('the stream ended before message_stop')),
    ),
  );
}

function definedOf(usage) {
  return Object.fromEntries(Object.entries(usage).filter(([, v]) => v !== null && v !== undefined));
}

class StreamError extends Error {}

/** The contract's error kind for a failure of Effect's client. */
function report(error) {
  // Config's error for a variable that is not set names it: "Missing data at ANTHROPIC_API_KEY".
  if (error?._op === 'MissingData' && error.path?.includes('ANTHROPIC_API_KEY'))
    return fail('missing_api_key', 'ANTHROPIC_API_KEY is not set');
  if (error?._tag === 'HttpResponseError' && error.response !== undefined) {
    const status = error.response.status;
    if (status >= 400) return fail(status === 429 ? 'rate_limit' : 'status', error.message, status);
  }
  if (error?._tag === 'HttpRequestError') return fail('connection', error.message);
  // A 200 whose body could not be read or decoded, an error event, a tool input that is not JSON.
  return fail('stream', String(error?.message ?? error));
}

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));

const program = Effect.gen(function* () {
  const client = yield* AnthropicClient.AnthropicClient;
  if (!body.stream) return yield* client.createMessage({ payload: body });
  const { stream: _stream, ...payload } = body;
  return yield* collect(client.createMessageStream({ payload }));
});

const layer = AnthropicClient.layerConfig({
  apiKey: Config.redacted('ANTHROPIC_API_KEY'),
  apiUrl: Config.string('ANTHROPIC_BASE_URL'),
}).pipe(Layer.provide(FetchHttpClient.layer));

const exit = await Effect.runPromiseExit(program.pipe(Effect.provide(layer)));
if (Exit.isSuccess(exit)) {
  // createMessage returns Effect's decoded BetaMessage (a class instance): print its fields.
  process.stdout.write(`${JSON.stringify({ ...exit.value })}\n`);
} else {
  const failure = Cause.failureOption(exit.cause);
  report(failure._tag === 'Some' ? failure.value : Cause.squash(exit.cause));
}
