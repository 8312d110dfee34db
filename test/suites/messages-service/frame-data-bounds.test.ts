import { afterEach, describe, expect, test, vi } from 'vitest';
import { decodeFrames, encodeEvent, encodeFrame } from '../../../src/protocol/sse/index.js';
import { isDelta } from '../../../src/suites/messages-service/checks/abort.js';
import {
  frameFormatViolations,
  messageStartViolations,
  parseFrames,
  pingViolations,
  unknownNameViolations,
} from '../../../src/suites/messages-service/index.js';

// A frame's data comes from the service under test: `{"message":[[[[...` sixteen MiB deep costs
// seconds and hundreds of MB per JSON.parse, and some twenty rules read every frame.

const DEPTH = 600;
const DEEP = `{"type":"message_start","message":${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}}`;

afterEach(() => {
  vi.restoreAllMocks();
});

describe('messages-service frame data from the service is parsed within limits', () => {
  test('a frame nested deeper than the limit is invalid data, named with the limit, and never parsed', () => {
    const frames = decodeFrames([encodeFrame('message_start', DEEP)]).frames;
    const parse = vi.spyOn(JSON, 'parse');
    const [v] = frameFormatViolations(frames, '');
    expect(v?.expected).toBe('a `data:` line holding a JSON object');
    expect(v?.actual).toMatch(/^JSON nested deeper than the 512-level limit \(maxDepth\): .* in "\{/);
    expect(v?.frameIndex).toBe(0);
    expect(parseFrames(frames)).toEqual([]);
    expect(messageStartViolations(frames)[0]?.actual).toBe('none');
    expect(unknownNameViolations(frames)).toEqual([]);
    expect(parse).not.toHaveBeenCalled();
  });

  test("each frame's data is parsed once however many rules read it", () => {
    const frames = decodeFrames([
      encodeEvent({ type: 'ping' }),
      encodeEvent({ type: 'message_stop' }),
      encodeFrame('ping', 'not json'),
    ]).frames;
    const parse = vi.spyOn(JSON, 'parse');
    frameFormatViolations(frames, '');
    pingViolations(frames);
    unknownNameViolations(frames);
    parseFrames(frames);
    expect(parse).toHaveBeenCalledTimes(frames.length);
  });

  test('data that is not JSON keeps its plain report', () => {
    const frames = decodeFrames([encodeFrame('ping', 'not json')]).frames;
    expect(frameFormatViolations(frames, '')[0]?.actual).toBe('"not json"');
  });
});

describe('messages-service abort check: which frame is the first delta', () => {
  test('a frame nested deeper than the limit is no delta, and is not parsed', () => {
    const deepDelta = `{"type":"content_block_delta","delta":${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}}`;
    const [deep, plain] = decodeFrames([
      encodeFrame(undefined, deepDelta),
      encodeFrame(undefined, '{"type":"content_block_delta"}'),
    ]).frames;
    const parse = vi.spyOn(JSON, 'parse');
    expect(isDelta(deep!)).toBe(false);
    expect(parse).not.toHaveBeenCalled();
    expect(isDelta(plain!)).toBe(true);
  });
});
