import { describe, expect, test } from 'vitest';
import { FuzzViolation } from '../../src/fuzz/surface.js';
import { judgeScenarioReply, type ScenarioReplyCase } from '../../src/fuzz/surfaces/mock-scenario-replies.js';
import { messageBatches } from '../../src/mocks/messages/source-frames.js';
import type { Message } from '../../src/protocol/messages/index.js';
import { WITH_OTHER_BLOCKS } from '../mocks/messages/helpers.js';

// The surface's rule, judged on made-up answers: what a correct mock sends passes, and each
// way of getting it wrong is caught.

const reply = { kind: 'message', message: WITH_OTHER_BLOCKS, splits: [[3, 9]] };
const streamed: ScenarioReplyCase = { reply, stream: true };
const buffered: ScenarioReplyCase = { reply, stream: false };
const SSE = 'text/event-stream; charset=utf-8';

function streamOf(message: Message): Buffer {
  return Buffer.concat([...messageBatches(message, [[3, 9]], '\n', 3)].map((b) => Buffer.from(b.bytes)));
}
const ok = (body: Buffer | string, contentType = SSE, status = 200) => ({
  status,
  contentType,
  body: Buffer.from(body),
});
const refusal = (message: string) =>
  ok(
    JSON.stringify({ type: 'error', error: { type: 'api_error', message }, request_id: 'req_1' }),
    'application/json',
    500,
  );

describe('judgeScenarioReply', () => {
  test('a reply served whole passes, buffered and streamed', () => {
    expect(() =>
      judgeScenarioReply(buffered, ok(JSON.stringify(WITH_OTHER_BLOCKS), 'application/json')),
    ).not.toThrow();
    expect(() => judgeScenarioReply(streamed, ok(streamOf(WITH_OTHER_BLOCKS)))).not.toThrow();
  });

  test('a cut response, a block lost, a stream cut short or a 200 for a broken reply is a violation', () => {
    const violation = (c: ScenarioReplyCase, answer: Parameters<typeof judgeScenarioReply>[1]) =>
      expect(() => judgeScenarioReply(c, answer)).toThrow(FuzzViolation);
    violation(streamed, new Error('response destroyed before completion'));
    const withoutThinking = { ...WITH_OTHER_BLOCKS, content: WITH_OTHER_BLOCKS.content.slice(1) };
    violation(buffered, ok(JSON.stringify(withoutThinking), 'application/json'));
    violation(streamed, ok(streamOf(withoutThinking)));
    const full = streamOf(WITH_OTHER_BLOCKS);
    violation(streamed, ok(full.subarray(0, full.length - 1)));
    violation(streamed, ok(full.subarray(0, full.lastIndexOf('event: message_stop'))));
    violation({ reply: { ...reply, splits: 'ab' }, stream: true }, ok(full));
    violation({ reply: { kind: 'raw', frames: [null] }, stream: true }, ok(''));
    violation({ reply: { kind: 'raw', frames: [null] }, stream: true }, refusal('something else'));
    // A mistyped fault and a header Node cannot send must be refused, not served.
    violation({ reply: { ...reply, faults: { lineEnding: 'nope' } }, stream: true }, ok(full));
    const rateLimited = ok(
      JSON.stringify({
        type: 'error',
        error: { type: 'rate_limit_error', message: 'm' },
        request_id: 'req_1',
      }),
      'application/json',
      429,
    );
    violation(
      { reply: { kind: 'error', status: 429, headers: { 'x-a': 'a\nb' } }, stream: false },
      rateLimited,
    );
    violation({ reply: { kind: 'error', status: 429, headers: { 'x a': 'b' } }, stream: false }, rateLimited);
    // Served as given when it can be.
    expect(() =>
      judgeScenarioReply(
        { reply: { kind: 'error', status: 429, headers: { 'x-a': 'é', 'x-b': '' } }, stream: false },
        rateLimited,
      ),
    ).not.toThrow();
    expect(() =>
      judgeScenarioReply({ reply: { ...reply, faults: { lineEnding: 'crlf' } }, stream: true }, ok(full)),
    ).not.toThrow();
  });

  test('a broken reply refused with 500 api_error naming the scenario passes', () => {
    expect(() =>
      judgeScenarioReply(
        { reply: { kind: 'raw', frames: [null] }, stream: true },
        refusal("the mock's scenario returned a raw reply whose frame 0 is neither ..."),
      ),
    ).not.toThrow();
    expect(() =>
      judgeScenarioReply(
        { reply: { kind: 'error', status: 429, headers: { 'x-a': '€' } }, stream: false },
        refusal(`the mock's scenario returned an error reply whose headers are wrong: ...`),
      ),
    ).not.toThrow();
  });
});
