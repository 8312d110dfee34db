import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { createMockMessagesApp } from '../../mocks/messages/build.js';
import type { Reply } from '../../mocks/messages/reply.js';
import { parseJsonBounded } from '../../protocol/json/index.js';
import { ErrorBody, Message } from '../../protocol/messages/index.js';
import { decodeFrames } from '../../protocol/sse/index.js';
import { arbMessage } from '../../suites/arbitraries/messages.js';
import { rebuiltBlocks } from '../oracles/rebuilt-blocks.js';
import { type FuzzSurface, FuzzViolation } from '../surface.js';

/*
 * What a test's scenario hands the mock messages service: messages with blocks of any type
 * (the real API's thinking and server tools, made-up ones), cuts of any kind, raw frames of
 * any JSON value, error replies of any status and headers, line endings known and
 * mistyped; valid and broken alike. The mock must
 * either serve the reply whole or refuse it with 500 api_error before any frame, never
 * cut a response or serve a broken reply as if it were fine.
 */

export interface ScenarioReplyCase {
  /** The reply as the scenario returns it (JSON values only: what a test could write). */
  readonly reply: unknown;
  readonly stream: boolean;
}

const REFUSAL = /^the mock's scenario returned /;

/** Blocks of types the spec does not describe (the real API's and made-up ones), with fields of any JSON value. */
export const arbOtherBlock: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  fc.record({
    type: fc.constant('thinking'),
    thinking: fc.string({ unit: 'grapheme' }),
    signature: fc.string(),
  }),
  fc.record({
    type: fc.constant('thinking'),
    thinking: fc.oneof(fc.string(), fc.jsonValue({ maxDepth: 1 })),
  }),
  fc.record({ type: fc.constant('redacted_thinking'), data: fc.string() }),
  fc.record({
    type: fc.constantFrom('server_tool_use', 'mcp_tool_use'),
    id: fc.string(),
    name: fc.string(),
    input: fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 })),
  }),
  fc.record({
    type: fc.string({ minLength: 1 }).filter((t) => t !== 'text' && t !== 'tool_use'),
    extra: fc.jsonValue({ maxDepth: 2 }),
  }),
);

/** Those, or a block of the spec's types without its fields, or any JSON value: content a reply may not carry. */
const arbAnyBlock: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: arbOtherBlock },
  {
    weight: 1,
    arbitrary: fc.record({ type: fc.constantFrom('text', 'tool_use'), extra: fc.jsonValue({ maxDepth: 1 }) }),
  },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
);

/** Cuts for a block: offsets of any number (out of range, unordered), or nothing, or a broken value. */
const arbCuts: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: fc.array(fc.integer({ min: -3, max: 60 }), { maxLength: 8 }) },
  { weight: 2, arbitrary: fc.constantFrom(undefined, null) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) },
);

/** Faults a script may hand over: a line ending, known or mistyped. */
const arbFaults: fc.Arbitrary<unknown> = fc.record({
  lineEnding: fc.oneof(fc.constantFrom('lf', 'crlf', 'cr'), fc.string()),
});

/** Response headers of an error reply: sendable, or with a name or value Node refuses (line breaks, text above U+00FF). */
const arbHeaders: fc.Arbitrary<unknown> = fc.dictionary(
  fc
    .oneof(fc.constantFrom('x-a', 'x-should-retry', 'retry-after'), fc.string({ minLength: 1, maxLength: 8 }))
    .map((n) => n.toLowerCase()),
  fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('a\r\nb', 'é', '€', '')),
  { maxKeys: 3 },
);

const arbMessageReply: fc.Arbitrary<unknown> = arbMessage({ maxBlocks: 3 }).chain((m) =>
  fc
    .record({
      inserts: fc.array(fc.tuple(fc.nat({ max: 3 }), arbAnyBlock), { maxLength: 3 }),
      broken: fc.option(
        fc.constantFrom<[string, unknown]>(
          ['stop_reason', 42],
          ['id', ''],
          ['role', 'user'],
          ['usage', { input_tokens: -1, output_tokens: 0 }],
          ['content', 'text'],
          ['model', null],
        ),
        { freq: 5, nil: undefined },
      ),
      splits: fc.oneof(
        { weight: 8, arbitrary: fc.array(arbCuts, { maxLength: 7 }) },
        { weight: 1, arbitrary: fc.constantFrom(undefined, 'ab', 7, { a: 1 }) },
      ),
      faults: fc.option(arbFaults, { freq: 4, nil: undefined }),
    })
    .map(({ inserts, broken, splits, faults }) => {
      const content: unknown[] = [...m.content];
      for (const [at, block] of inserts) content.splice(Math.min(at, content.length), 0, block);
      const message: Record<string, unknown> = { ...m, content };
      if (broken) message[broken[0]] = broken[1];
      return {
        kind: 'message',
        message,
        ...(splits !== undefined && { splits }),
        ...(faults !== undefined && { faults }),
      };
    }),
);

const arbRawFrame: fc.Arbitrary<unknown> = fc.oneof(
  fc.record({ type: fc.string(), index: fc.nat() }),
  fc.record(
    { data: fc.string(), event: fc.option(fc.string(), { nil: undefined }) },
    { requiredKeys: ['data'] },
  ),
  fc.record({ comment: fc.string() }),
  fc.jsonValue({ maxDepth: 2 }),
);

const arbReply: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: arbMessageReply },
  {
    weight: 2,
    arbitrary: fc.record(
      { kind: fc.constant('raw'), frames: fc.array(arbRawFrame, { maxLength: 6 }), faults: arbFaults },
      { requiredKeys: ['kind', 'frames'] },
    ),
  },
  {
    weight: 1,
    arbitrary: fc.record(
      {
        kind: fc.constant('error'),
        status: fc.oneof(fc.integer({ min: 400, max: 599 }), fc.integer({ min: -1, max: 1000 })),
        errorType: fc.string({ minLength: 1 }),
        message: fc.string(),
        headers: arbHeaders,
      },
      { requiredKeys: ['kind', 'status'] },
    ),
  },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
);

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** An HTTP token, and the text a header value may hold (RFC 9110: visible ASCII, tab, space, obs-text). */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

function faultsOk(faults: unknown): boolean {
  if (faults === undefined) return true;
  return (
    isObject(faults) && ['lf', 'crlf', 'cr', undefined].includes(faults.lineEnding as string | undefined)
  );
}

/** Whether the mock must serve the reply: what the docs promise, decided here without the mock's code. */
function servable(reply: unknown): boolean {
  if (!isObject(reply)) return false;
  if (reply.kind !== 'error' && !faultsOk(reply.faults)) return false;
  if (reply.kind === 'message') {
    const splits = reply.splits;
    const splitsOk =
      splits === undefined ||
      (Array.isArray(splits) &&
        splits.every(
          (s) => s === undefined || s === null || (Array.isArray(s) && s.every((o) => typeof o === 'number')),
        ));
    return Message.safeParse(reply.message).success && splitsOk;
  }
  if (reply.kind === 'raw') {
    return (
      Array.isArray(reply.frames) &&
      reply.frames.every(
        (f) =>
          isObject(f) &&
          (typeof f.type === 'string' ||
            typeof f.comment === 'string' ||
            (typeof f.data === 'string' && (f.event === undefined || typeof f.event === 'string'))),
      )
    );
  }
  if (reply.kind === 'error') {
    return (
      typeof reply.status === 'number' &&
      Number.isInteger(reply.status) &&
      reply.status >= 400 &&
      reply.status <= 599 &&
      (reply.headers === undefined ||
        (isObject(reply.headers) &&
          Object.entries(reply.headers).every(
            ([name, value]) =>
              HEADER_NAME.test(name) && typeof value === 'string' && HEADER_VALUE.test(value),
          )))
    );
  }
  return false;
}

interface Answer {
  readonly status: number;
  readonly contentType: string;
  readonly body: Buffer;
}

/** The rule for one case, on the mock's answer (pure: tested directly). */
export function judgeScenarioReply(c: ScenarioReplyCase, answer: Answer | Error): void {
  if (answer instanceof Error) throw new FuzzViolation(`the mock cut the response: ${answer.message}`);
  const reply = c.reply as Record<string, unknown>;
  if (!servable(c.reply)) {
    const body = ErrorBody.safeParse(parseOrUndefined(answer.body.toString('utf8')));
    if (
      answer.status !== 500 ||
      !body.success ||
      body.data.error.type !== 'api_error' ||
      !REFUSAL.test(body.data.error.message)
    ) {
      throw new FuzzViolation(
        `expected 500 api_error "the mock's scenario returned ..." for a reply it cannot serve; got ${answer.status}: ${answer.body.toString('utf8').slice(0, 300)}`,
      );
    }
    return;
  }
  if (reply.kind === 'error') {
    const body = ErrorBody.safeParse(parseOrUndefined(answer.body.toString('utf8')));
    if (answer.status !== reply.status || !body.success) {
      throw new FuzzViolation(`expected status ${reply.status} with an error body; got ${answer.status}`);
    }
    return;
  }
  if (answer.status !== 200) {
    throw new FuzzViolation(
      `expected 200 for a reply it can serve; got ${answer.status}: ${answer.body.toString('utf8').slice(0, 300)}`,
    );
  }
  const message = JSON.parse(JSON.stringify(reply.message ?? null)) as Record<string, unknown>;
  if (reply.kind === 'message' && !c.stream) {
    const served = parseOrUndefined(answer.body.toString('utf8'));
    if (!isDeepStrictEqual(served, message)) {
      throw new FuzzViolation(
        `the buffered body is not the scenario's message: ${answer.body.toString('utf8').slice(0, 300)}`,
      );
    }
    return;
  }
  if (!answer.contentType.startsWith('text/event-stream')) {
    throw new FuzzViolation(`expected an event stream; got content-type ${answer.contentType}`);
  }
  const { frames, unterminated: rest } = decodeFrames([answer.body]);
  if (rest !== '')
    throw new FuzzViolation(`the stream ends inside a frame: ${JSON.stringify(rest.slice(0, 200))}`);
  if (reply.kind === 'raw') return;
  const events = frames.map((f) => JSON.parse(f.data) as Record<string, unknown>);
  const names = frames.map((f) => f.event);
  if (
    !isDeepStrictEqual(
      names,
      events.map((e) => e.type),
    )
  ) {
    throw new FuzzViolation(`an event name differs from its JSON type: ${JSON.stringify(names)}`);
  }
  if (events.at(-1)?.type !== 'message_stop')
    throw new FuzzViolation('the stream does not end with message_stop');
  const blocks = rebuiltBlocks(events);
  if (!isDeepStrictEqual(blocks, message.content)) {
    throw new FuzzViolation(
      `the streamed blocks do not rebuild the message's: ${JSON.stringify(blocks).slice(0, 300)}`,
    );
  }
}

/** The mock's body as JSON, or undefined when it is not (parsed within the usual bounds). */
function parseOrUndefined(text: string): unknown {
  const parsed = parseJsonBounded(text);
  return parsed.ok ? parsed.value : undefined;
}

export const mockScenarioReplies: FuzzSurface<ScenarioReplyCase> = {
  name: 'mock-scenario-replies',
  description:
    "replies a test's scenario hands the mock messages service (blocks of any type, cuts of any kind, raw frames and error replies of any value): served whole, or refused with 500 api_error before any frame; never a cut response",
  open() {
    let current: unknown;
    const { app } = createMockMessagesApp({ scenario: () => current as Reply, journalLimit: 0 });
    return {
      arbitrary: fc.record({ reply: arbReply, stream: fc.boolean() }),
      async check(c) {
        current = c.reply;
        const answer = await app
          .inject({
            method: 'POST',
            url: '/v1/messages',
            headers: { 'x-api-key': 'sk-fuzz', 'content-type': 'application/json' },
            payload: JSON.stringify({
              model: 'mock-model',
              max_tokens: 64,
              stream: c.stream,
              messages: [{ role: 'user', content: 'hi' }],
            }),
          })
          .then(
            (res): Answer => ({
              status: res.statusCode,
              contentType: String(res.headers['content-type'] ?? ''),
              body: res.rawPayload,
            }),
            (e: Error) => e,
          );
        judgeScenarioReply(c, answer);
      },
      close: () => app.close(),
    };
  },
};
