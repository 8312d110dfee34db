import { afterEach, describe, expect, test, vi } from 'vitest';
import { decodeFrames, encodeEvent, type SseFrame } from '../../../src/protocol/sse/index.js';
import {
  followStream,
  orderViolations,
  partialJsonViolations,
  toolUseStarts,
} from '../../../src/suites/messages-service/index.js';
import { MESSAGE_START } from './stream-replies.js';

// A hostile service may send tens of thousands of tool_use blocks and end the stream with an
// error event: judging it must cost work in proportion to its frames, not to their square.

const OVERLOADED = { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } };

/** `count` tool_use blocks (start, `{}` delta unless `withDeltas` is false, stop), ended by an error event. */
function toolBlocksEndedByError(
  count: number,
  { withDeltas = true, lastOpen = false }: { withDeltas?: boolean; lastOpen?: boolean } = {},
): SseFrame[] {
  const events: Array<{ type: string; [field: string]: unknown }> = [MESSAGE_START];
  for (let index = 0; index < count; index++) {
    events.push({
      type: 'content_block_start',
      index,
      content_block: { type: 'tool_use', id: `toolu_${index}`, name: 'bash', input: {} },
    });
    if (withDeltas) {
      events.push({
        type: 'content_block_delta',
        index,
        delta: { type: 'input_json_delta', partial_json: '{}' },
      });
    }
    if (!(lastOpen && index === count - 1)) events.push({ type: 'content_block_stop', index });
  }
  events.push(OVERLOADED);
  return decodeFrames([events.map((e) => encodeEvent(e)).join('')]).frames;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('messages-service frame rules on a stream of many tool_use blocks', () => {
  test("judging 300 tool_use blocks ended by an error parses each frame's data once", () => {
    const blocks = 300;
    const frames = toolBlocksEndedByError(blocks);
    const parse = vi.spyOn(JSON, 'parse');
    const followed = followStream(frames);
    expect(toolUseStarts(frames)).toHaveLength(blocks);
    expect(partialJsonViolations(frames, followed)).toEqual({ violations: [], undetermined: undefined });
    // Each frame's data once, and each block's concatenated partial_json once at its stop.
    expect(parse.mock.calls.length).toBeLessThanOrEqual(frames.length + blocks);
  });

  test('a tool input left open by the error is still found among many closed ones', () => {
    const frames = toolBlocksEndedByError(300, { lastOpen: true });
    expect(partialJsonViolations(frames, followStream(frames)).undetermined).toMatch(
      /^a tool input was cut: the stream ended by the service's error event at frame 900 /,
    );
  });

  test('20,000 tool_use blocks without deltas, ended by an error, are judged block by block', () => {
    const blocks = 20_000;
    const frames = toolBlocksEndedByError(blocks, { withDeltas: false });
    const followed = followStream(frames);
    // Each block's stop frame is named: frame 0 is message_start, then start/stop pairs.
    expect(followed.stopsWithoutDeltas).toHaveLength(blocks);
    expect(followed.stopsWithoutDeltas.slice(0, 3)).toEqual([2, 4, 6]);
    expect(followed.stopsWithoutDeltas.at(-1)).toBe(2 * blocks);
    expect(orderViolations(frames, followed).violations).toHaveLength(blocks);
    expect(toolUseStarts(frames)).toHaveLength(blocks);
    // Every block closed before the error, each with an empty input: no fragment to judge.
    expect(partialJsonViolations(frames, followed)).toEqual({
      violations: [],
      undetermined: expect.stringMatching(/^no tool input came as fragments/),
    });
  });
});
