import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, test } from 'vitest';
import { NotExercised } from '../../../src/harness/check.js';
import { encodeEvent } from '../../../src/protocol/sse/index.js';
import { streamChecks } from '../../../src/suites/messages-service/checks/stream.js';
import { toolChecks } from '../../../src/suites/messages-service/checks/tools.js';
import { ServiceBusy, type ServiceClient, sendStreamed } from '../../../src/suites/messages-service/http.js';
import { streamedMessage } from '../../../src/suites/messages-service/reply-rules.js';
import { MESSAGE_START, streamReplyOf, streamsCtx } from './stream-replies.js';

// The spec leaves "an error event within the message stream" not shown; the real API ends a
// stream it cannot finish with `event: error` (overloaded_error...). Such a stream breaks no
// frame rule, and a transient one is asked again as a 529 is.

const START = MESSAGE_START;
const TOOL_BLOCK = [
  {
    type: 'content_block_start',
    index: 0,
    content_block: { type: 'tool_use', id: 'toolu_1', name: 'bash', input: {} },
  },
  { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"command":' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: ' "ls"}' } },
  { type: 'content_block_stop', index: 0 },
];
const END = [
  {
    type: 'message_delta',
    delta: { stop_reason: 'tool_use', stop_sequence: null },
    usage: { output_tokens: 9 },
  },
  { type: 'message_stop' },
];
const WHOLE = [START, ...TOOL_BLOCK, ...END];
const MALFORMED_ERROR = { type: 'error', error: 'overloaded' };
const API_ERROR = { type: 'error', error: { type: 'api_error', message: 'Internal server error' } };
const PING = { type: 'ping' };
const TEXT_OPEN = [
  { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hel' } },
];
const OVERLOADED = { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } };

const reply = streamReplyOf;
const ctxOf = streamsCtx;
const env = { signal: new AbortController().signal } as never;
const checkOf = (id: string) =>
  [...streamChecks, ...toolChecks].find((c) => c.id === `messages-service.${id}`)!;

const JUDGED_UP_TO_THE_ERROR = [
  'stream.order',
  'stream.message-start',
  'stream.message-delta',
  'stream.reduces-to-message',
  'stream.frame-format',
  'stream.unknown-events',
  'tools.partial-json',
];

describe('messages-service: a stream the service ends with an error event', () => {
  test.each(JUDGED_UP_TO_THE_ERROR)(
    '%s passes a whole stream beside one ended by overloaded_error',
    async (id) => {
      const cut = reply([START, ...TOOL_BLOCK, OVERLOADED]);
      await expect(checkOf(id).run(ctxOf(cut, reply(WHOLE)), env)).resolves.toBeUndefined();
      await expect(checkOf(id).run(ctxOf(reply(WHOLE), cut), env)).resolves.toBeUndefined();
    },
  );

  test.each(['stream.order', 'stream.message-start', 'stream.message-delta', 'stream.reduces-to-message'])(
    '%s is not exercised when every stream is only an error event',
    async (id) => {
      const only = reply([OVERLOADED]);
      await expect(checkOf(id).run(ctxOf(only, only), env)).rejects.toThrow(NotExercised);
      await expect(checkOf(id).run(ctxOf(only, only), env)).rejects.toThrow(
        /ended by the service's error event/,
      );
    },
  );

  test('tools.partial-json judges a tool input closed before the error, and not one the error cut', async () => {
    const closed = reply([START, ...TOOL_BLOCK, OVERLOADED]);
    await expect(checkOf('tools.partial-json').run(ctxOf(closed, closed), env)).resolves.toBeUndefined();
    const open = reply([START, ...TOOL_BLOCK.slice(0, 2), OVERLOADED]);
    await expect(checkOf('tools.partial-json').run(ctxOf(open, open), env)).rejects.toThrow(
      /a tool input was cut: the stream ended by the service's error event/,
    );
  });

  test('the order before the error is still judged', async () => {
    const disordered = reply([START, TOOL_BLOCK[0]!, TOOL_BLOCK[3]!, OVERLOADED]);
    await expect(checkOf('stream.order').run(ctxOf(disordered, reply(WHOLE)), env)).rejects.toThrow(
      /frame order/,
    );
  });

  test('an error event that is not the last frame, or is malformed, is no ending', async () => {
    const onward = reply([START, OVERLOADED, ...TOOL_BLOCK, ...END]);
    await expect(checkOf('stream.reduces-to-message').run(ctxOf(onward, reply(WHOLE)), env)).rejects.toThrow(
      /does not fold into a message/,
    );
    const malformed = reply([START, ...TOOL_BLOCK, MALFORMED_ERROR]);
    await expect(
      checkOf('stream.reduces-to-message').run(ctxOf(malformed, reply(WHOLE)), env),
    ).rejects.toThrow(/does not fold into a message/);
  });

  test('a stream its error ended folds into no message, and breaks no rule: `unjudged` says why (requests.valid-accepted is then not exercised, as after a 529 through the retries)', () => {
    const folded = streamedMessage(reply([START, ...TOOL_BLOCK, OVERLOADED]));
    expect(folded.message).toBeUndefined();
    expect(folded.violations).toEqual([]);
    expect(folded.unjudged).toMatch(
      /^ended by the service's error event at frame 5 «event: error .*» \(overloaded_error: "Overloaded"\)$/,
    );
    // A fault before the error is still one.
    const disordered = streamedMessage(reply([START, TOOL_BLOCK[1]!, OVERLOADED]));
    expect(disordered.unjudged).toBeUndefined();
    expect(disordered.violations.map((v) => v.where)).toEqual([
      expect.stringMatching(/^frame 1 «event: content_block_delta/),
    ]);
  });

  // The spec: a ping may occur anywhere; readers skip an event whose name the spec does not list.
  test.each([
    ['a ping', [PING]],
    ['a ping and an unknown event', [PING, { type: 'wirecheck_debug' }]],
  ])(
    '%s after the error event leave the stream ended by it: the checks of the end are not exercised',
    async (_, after) => {
      const cut = reply([START, ...TEXT_OPEN, API_ERROR, ...after]);
      for (const id of ['stream.reduces-to-message', 'stream.message-delta', 'stream.order']) {
        const outcome = checkOf(id).run(ctxOf(cut, cut), env);
        await expect(outcome, id).rejects.toThrow(NotExercised);
        await expect(outcome, id).rejects.toThrow(/every stream was ended by the service's error event/);
      }
      expect(streamedMessage(cut)).toMatchObject({
        violations: [],
        unjudged: expect.stringMatching(/api_error/),
      });
    },
  );
});

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/** A service on 127.0.0.1:0 answering its nth stream request with `answers[n]` (the last one after). */
async function service(
  answers: readonly (readonly object[])[],
): Promise<{ client: ServiceClient; asked: () => number }> {
  let asked = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const events = answers[Math.min(asked++, answers.length - 1)]!;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(events.map((e) => encodeEvent(e as never)).join(''));
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  const client = {
    baseUrl: `http://127.0.0.1:${port}`,
    apiKey: 'k',
    requestTimeoutMs: 10_000,
    signal: new AbortController().signal,
  };
  return { client, asked: () => asked };
}

const BODY = JSON.stringify({ model: 'm', max_tokens: 8, messages: [], stream: true });

describe('messages-service: a stream ended by a transient error event is asked again', () => {
  test('overloaded_error, then a whole stream: the whole one is judged', async () => {
    const { client, asked } = await service([[START, OVERLOADED], WHOLE]);
    const got = await sendStreamed(client, BODY);
    expect(asked()).toBe(2);
    expect(streamedMessage(got).message?.stop_reason).toBe('tool_use');
  });

  test('at most two retries, as for status 529; then the service is busy (not exercised), or, asked for, the error-ended stream is the reply', async () => {
    const { client, asked } = await service([[START, OVERLOADED]]);
    const error = await sendStreamed(client, BODY).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(asked()).toBe(3);
    expect(error).toBeInstanceOf(ServiceBusy);
    expect(error).toBeInstanceOf(NotExercised);
    expect((error as Error).message).toContain(
      'a stream ended by an error event of type overloaded_error (after 2 retries, as for a 429 or 529)',
    );
    const got = await sendStreamed(client, BODY, { busy: 'return' });
    expect(asked()).toBe(6);
    expect(got.frames.at(-1)?.event).toBe('error');
  });

  test('overloaded_error with a ping after it is asked again as well', async () => {
    const { client, asked } = await service([[START, OVERLOADED, PING], WHOLE]);
    const got = await sendStreamed(client, BODY);
    expect(asked()).toBe(2);
    expect(streamedMessage(got).message?.stop_reason).toBe('tool_use');
  });

  test('through the retries, a shared stream (busyStream: return) is the error-ended reply, to be judged up to its error', async () => {
    const { client, asked } = await service([[START, OVERLOADED]]);
    const got = await sendStreamed(client, BODY, { busyStream: 'return' });
    expect(asked()).toBe(3);
    expect(got.frames.at(-1)?.event).toBe('error');
  });

  test('an error that is not transient (invalid_request_error) is not asked again', async () => {
    const invalid = { type: 'error', error: { type: 'invalid_request_error', message: 'no' } };
    const { client, asked } = await service([[START, invalid], WHOLE]);
    await sendStreamed(client, BODY);
    expect(asked()).toBe(1);
  });
});
