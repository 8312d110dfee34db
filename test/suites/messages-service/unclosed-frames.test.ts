import { describe, expect, test } from 'vitest';
import { NotExercised } from '../../../src/harness/check.js';
import { decodeFrames } from '../../../src/protocol/sse/index.js';
import { streamChecks } from '../../../src/suites/messages-service/checks/stream.js';
import type { StreamedReply } from '../../../src/suites/messages-service/index.js';
import { MESSAGE_START, streamReplyOf, streamsCtx } from './stream-replies.js';

const check = streamChecks.find((c) => c.id === 'messages-service.stream.frame-format')!;
const env = { signal: new AbortController().signal } as never;

/** A 200 event stream whose frames end with one line break each: no blank line ever closes one. */
function unclosedStream(): StreamedReply {
  const text = [MESSAGE_START, { type: 'message_stop' }]
    .map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n`)
    .join('');
  const { frames, unterminated } = decodeFrames([text]);
  return { ...streamReplyOf([]), frames, unterminated, text };
}

describe('messages-service.stream.frame-format on frames never closed by a blank line', () => {
  test('a service whose every frame lacks its blank line fails the check, not "not exercised"', async () => {
    const broken = unclosedStream();
    expect(broken.frames).toEqual([]);
    await expect(check.run(streamsCtx(broken, broken), env)).rejects.toThrow(/unterminated frame/);
  });

  test('streams with no frame and nothing held are still not exercised', async () => {
    const empty = streamReplyOf([]);
    await expect(check.run(streamsCtx(empty, empty), env)).rejects.toBeInstanceOf(NotExercised);
  });
});
