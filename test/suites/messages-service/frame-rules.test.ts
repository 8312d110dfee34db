import { describe, expect, test } from 'vitest';
import { eventsOfMessage, type Message } from '../../../src/protocol/messages/index.js';
import { decodeFrames, encodeEvent, encodeFrame, type SseFrame } from '../../../src/protocol/sse/index.js';
import {
  deltaUsageViolations,
  failOn,
  followStream,
  frameFormatViolations,
  messageDeltaViolations,
  messageStartViolations,
  orderViolations,
  partialJsonViolations,
  pingViolations,
  startInputTokens,
  textStartViolations,
  toolUseStarts,
  unknownFieldViolations,
  unknownNameViolations,
} from '../../../src/suites/messages-service/index.js';

const MESSAGE: Message = {
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  model: 'm',
  content: [
    { type: 'text', text: 'Running it.' },
    { type: 'tool_use', id: 'toolu_1', name: 'bash', input: { command: 'echo wirecheck' } },
  ],
  stop_reason: 'tool_use',
  stop_sequence: null,
  usage: { input_tokens: 12, output_tokens: 30 },
};

type Ev = Record<string, unknown> & { type: string };

function events(message: Message = MESSAGE): Ev[] {
  return eventsOfMessage(message, [[4], [3, 11, 20]]).map((e) => ({ ...e }) as Ev);
}

/** Encode events as a server would and decode them as the suite does. */
function framesOf(evs: readonly Ev[]): SseFrame[] {
  return decodeFrames([evs.map((e) => encodeEvent(e)).join('')]).frames;
}

describe('a canonical stream', () => {
  test('breaks no frame rule', () => {
    const frames = framesOf([events()[0]!, { type: 'ping' }, ...events().slice(1)]);
    const followed = followStream(frames);
    expect(followed.message).toEqual(MESSAGE);
    expect(frameFormatViolations(frames, '')).toEqual([]);
    expect(orderViolations(frames, followed)).toEqual({ violations: [], undetermined: undefined });
    expect(messageStartViolations(frames)).toEqual([]);
    expect(messageDeltaViolations(frames)).toEqual([]);
    expect(deltaUsageViolations(frames)).toEqual({ deltas: 6, violations: [] });
    expect(partialJsonViolations(frames, followed)).toEqual({ violations: [], undetermined: undefined });
    expect(pingViolations(frames)).toEqual({ pings: 1, violations: [] });
    expect(unknownNameViolations(frames)).toEqual([]);
    expect(textStartViolations(frames)).toEqual({ starts: 1, violations: [] });
    expect(startInputTokens(frames)).toBe(MESSAGE.usage.input_tokens);
    expect(toolUseStarts(frames).map((p) => p.frameIndex)).toEqual([6]);
  });
});

describe('frame format (Events: each frame is an event line and a data line whose type is the event name)', () => {
  test('a frame without an event line is named with its position', () => {
    const frames = decodeFrames([encodeFrame(undefined, '{"type":"message_stop"}')]).frames;
    expect(frameFormatViolations(frames, '')).toEqual([
      {
        where: 'frame 0 «no event line | data: {\\"type\\":\\"message_stop\\"}»',
        expected: 'an `event:` line naming the event',
        actual: 'no event line',
        frameIndex: 0,
      },
    ]);
  });

  test('data whose type differs from the event name is a violation naming both', () => {
    const frames = decodeFrames([encodeFrame('delta', '{"type":"content_block_delta"}')]).frames;
    const [v] = frameFormatViolations(frames, '');
    expect(v?.expected).toBe('data.type equal to the event name "delta"');
    expect(v?.actual).toBe('type "content_block_delta"');
  });

  test('data that is not a JSON object is a violation', () => {
    const frames = decodeFrames([encodeFrame('ping', 'not json'), encodeFrame('ping', '[1]')]).frames;
    expect(frameFormatViolations(frames, '').map((v) => v.expected)).toEqual([
      'a `data:` line holding a JSON object',
      'a `data:` line holding a JSON object',
    ]);
  });

  test('a last frame not closed by a blank line is a violation (clients discard it)', () => {
    const { frames, unterminated } = decodeFrames(['event: message_stop\ndata: {"type":"message_stop"}\n']);
    expect(frames).toEqual([]);
    expect(frameFormatViolations(frames, unterminated)).toEqual([
      expect.objectContaining({ expected: 'every frame closed by a blank line' }),
    ]);
  });

  test('a stray id: or retry: line after the last frame is no unclosed frame (it dispatches nothing)', () => {
    for (const tail of ['id: 7\n', 'retry: 100', 'id: 7\nretry: 100\n', 'id']) {
      const { frames, unterminated } = decodeFrames([`${encodeFrame('ping', '{"type":"ping"}')}${tail}`]);
      expect(unterminated).not.toBe('');
      expect(frameFormatViolations(frames, unterminated)).toEqual([]);
    }
    const { frames, unterminated } = decodeFrames(['id: 7\ndata: {"type":"ping"}\n']);
    expect(frameFormatViolations(frames, unterminated)).toHaveLength(1);
  });
});

describe('Events rule 1: order', () => {
  test('a frame out of order is reported with the exact frame', () => {
    const evs = events();
    // content_block_stop of the last block moved after message_delta
    const stop = evs.findLastIndex((e) => e.type === 'content_block_stop');
    const [moved] = evs.splice(stop, 1);
    evs.splice(evs.length - 1, 0, moved!);
    const frames = framesOf(evs);
    const { violations } = orderViolations(frames, followStream(frames));
    expect(violations).toHaveLength(1);
    expect(violations[0]!.where).toBe(
      `frame ${stop} «event: message_delta | data: ${JSON.stringify(JSON.stringify(evs[stop])).slice(1, -1)}»`,
    );
    expect(violations[0]!.expected).toBe('content_block_delta or content_block_stop');
    expect(violations[0]!.actual).toBe('message_delta');
  });

  test('a stream that ends before message_stop is truncated at the end of the stream', () => {
    const frames = framesOf(events().slice(0, -1));
    const { violations } = orderViolations(frames, followStream(frames), 'terminated');
    expect(violations[0]!.where).toBe(
      `end of stream after ${frames.length} frames (the body broke off: terminated)`,
    );
  });

  test('a block closed without any delta breaks "one or more content_block_delta"', () => {
    const evs = events().filter((e) => !(e.type === 'content_block_delta' && e.index === 0));
    const frames = framesOf(evs);
    const { violations } = orderViolations(frames, followStream(frames));
    expect(violations).toEqual([
      expect.objectContaining({
        where: expect.stringMatching(/^frame 2 «event: content_block_stop/),
        actual: 'none',
      }),
    ]);
  });

  test('a malformed frame leaves the order after it undetermined instead of failing it', () => {
    const evs = events();
    evs[0] = { ...evs[0]!, message: { ...(evs[0]!.message as object), content: MESSAGE.content } };
    const frames = framesOf(evs);
    const verdict = orderViolations(frames, followStream(frames));
    expect(verdict.violations).toEqual([]);
    expect(verdict.undetermined).toMatch(/could not be followed past frame 0 .*shape/);
  });
});

describe('message_start and message_delta contents', () => {
  test('message_start with content already filled is a violation', () => {
    const evs = events();
    evs[0] = { ...evs[0]!, message: { ...(evs[0]!.message as object), content: MESSAGE.content } };
    const [v] = messageStartViolations(framesOf(evs));
    expect(v?.where).toMatch(/^frame 0 «event: message_start/);
    expect(v?.actual).toMatch(/^message\.content/);
  });

  test('message_start without input_tokens is a violation', () => {
    const evs = events();
    evs[0] = { ...evs[0]!, message: { ...(evs[0]!.message as object), usage: { output_tokens: 1 } } };
    expect(messageStartViolations(framesOf(evs))[0]?.actual).toMatch(/usage\.input_tokens/);
  });

  test('a stream without message_start or message_delta says so', () => {
    expect(messageStartViolations([])[0]?.expected).toBe('a message_start frame');
    expect(messageDeltaViolations([])[0]?.expected).toBe('a message_delta frame');
  });

  test('a stop_reason that is not a string and a missing output_tokens are violations; a new stop reason is not', () => {
    const frames = framesOf([
      {
        type: 'message_delta',
        delta: { stop_reason: 7, stop_sequence: null },
        usage: { output_tokens: 3 },
      },
      {
        type: 'message_delta',
        delta: { stop_reason: 'refusal', stop_sequence: null },
        usage: { output_tokens: 3, cache_read_input_tokens: 2 },
      },
      { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: {} },
    ]);
    const found = messageDeltaViolations(frames);
    expect(found.map((v) => v.actual)).toEqual([
      expect.stringMatching(/^delta\.stop_reason/),
      expect.stringMatching(/^usage\.output_tokens/),
    ]);
  });
});

describe('Events rule 2: no token counts in deltas', () => {
  test('usage on a content_block_delta, or token counts inside its delta, are violations', () => {
    const frames = framesOf([
      {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'text_delta', text: 'a' },
        usage: { output_tokens: 1 },
      },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'b', output_tokens: 2 } },
      {
        type: 'message_delta',
        delta: { stop_reason: 'end_turn', stop_sequence: null },
        usage: { output_tokens: 2 },
      },
    ]);
    expect(deltaUsageViolations(frames).violations.map((v) => v.actual)).toEqual([
      'usage',
      'delta.output_tokens',
    ]);
  });

  test('a delta frame whose data is not a JSON object is not counted as judged', () => {
    const frames = decodeFrames([
      encodeFrame('content_block_delta', 'not json'),
      encodeFrame('content_block_delta', '"content_block_delta"'),
    ]).frames;
    expect(deltaUsageViolations(frames)).toEqual({ deltas: 0, violations: [] });
  });
});

describe('Events rule 3: partial_json concatenation parses at content_block_stop', () => {
  function brokenJson(stopReason: string): SseFrame[] {
    const evs = events({ ...MESSAGE, stop_reason: stopReason });
    const last = evs.findLast((e) => e.type === 'content_block_delta')!;
    const delta = last.delta as { partial_json: string };
    last.delta = { ...delta, partial_json: delta.partial_json.slice(0, -1) };
    return framesOf(evs);
  }

  test('fragments that do not form JSON are reported at the block stop frame', () => {
    const frames = brokenJson('tool_use');
    const { violations } = partialJsonViolations(frames, followStream(frames));
    expect(violations[0]!.where).toMatch(
      /^frame \d+ «event: content_block_stop \| data: \{\\"type\\":\\"content_block_stop\\",\\"index\\":1\}»/,
    );
    expect(violations[0]!.expected).toBe('the partial_json fragments of index 1 to form JSON');
  });

  test.each(['max_tokens', 'refusal', 'model_context_window_exceeded', 'x_new_reason'])(
    'a tool input cut by stop reason %s is no violation, and leaves the rule unjudged',
    (stopReason) => {
      const frames = brokenJson(stopReason);
      const followed = followStream(frames);
      const verdict = partialJsonViolations(frames, followed);
      expect(verdict.violations).toEqual([]);
      expect(verdict.undetermined).toMatch(
        new RegExp(`cut by stop reason "${stopReason}" at frame \\d+ .*mid-JSON \\(allowed\\)$`),
      );
      expect(orderViolations(frames, followed).undetermined).toMatch(
        new RegExp(`cut mid-JSON by stop reason "${stopReason}" \\(allowed\\)$`),
      );
    },
  );

  test.each(['end_turn', 'stop_sequence', 'pause_turn'])(
    'a tool input that does not form JSON in a reply stopped by %s (its output whole) is a violation',
    (stopReason) => {
      const frames = brokenJson(stopReason);
      expect(partialJsonViolations(frames, followStream(frames)).violations).toHaveLength(1);
    },
  );
});

describe('Events rule 3 judges the inputs that came as fragments', () => {
  const EMPTY_INPUT: Message = {
    ...MESSAGE,
    content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_time', input: {} }],
  };

  test('a tool_use block with an empty input and one empty fragment (as the real API streams it) leaves the rule unjudged', () => {
    const evs = eventsOfMessage(EMPTY_INPUT, [[1]]).map((e) => ({ ...e }) as Ev);
    for (const e of evs)
      if (e.type === 'content_block_delta') e.delta = { type: 'input_json_delta', partial_json: '' };
    const frames = framesOf(evs);
    expect(followStream(frames).message?.content).toEqual(EMPTY_INPUT.content);
    const verdict = partialJsonViolations(frames, followStream(frames));
    expect(verdict.violations).toEqual([]);
    expect(verdict.undetermined).toMatch(/^no tool input came as fragments/);
  });

  test('an input carried whole in content_block_start, with no partial_json text, is a violation at that frame', () => {
    const evs = events();
    const start = evs.find((e) => e.type === 'content_block_start' && e.index === 1)!;
    start.content_block = MESSAGE.content[1];
    for (const e of evs)
      if (e.type === 'content_block_delta' && e.index === 1)
        e.delta = { type: 'input_json_delta', partial_json: '' };
    const frames = framesOf(evs);
    const verdict = partialJsonViolations(frames, followStream(frames));
    expect(verdict.undetermined).toBeUndefined();
    expect(verdict.violations).toHaveLength(1);
    expect(verdict.violations[0]!.where).toMatch(/^frame \d+ «event: content_block_start/);
    expect(verdict.violations[0]!.actual).toMatch(
      /the input whole in content_block_start .* no partial_json text for index 1$/,
    );
  });

  test('a stream an error event ends after every tool block closed is judged on the fragments before it', () => {
    const ERROR = { type: 'error', error: { type: 'api_error', message: 'x' } };
    // Up to the tool block's stop, then the error (no message_delta, no message_stop).
    const upToToolStop = (evs: Ev[]) =>
      evs.slice(0, evs.findLastIndex((e) => e.type === 'content_block_stop') + 1);
    const whole = events();
    const whole0 = framesOf([...upToToolStop(whole), ERROR]);
    expect(partialJsonViolations(whole0, followStream(whole0))).toEqual({
      violations: [],
      undetermined: undefined,
    });
    // The input whole in the block's start: a violation, as in a stream that ends cleanly.
    const inStart = events();
    inStart.find((e) => e.type === 'content_block_start' && e.index === 1)!.content_block =
      MESSAGE.content[1];
    for (const e of inStart)
      if (e.type === 'content_block_delta' && e.index === 1)
        e.delta = { type: 'input_json_delta', partial_json: '' };
    const cutInStart = framesOf([...upToToolStop(inStart), ERROR]);
    expect(partialJsonViolations(cutInStart, followStream(cutInStart)).violations).toHaveLength(1);
    // An empty input before the error: nothing to judge, as in a whole stream.
    const empty = eventsOfMessage(EMPTY_INPUT, [[1]]).map((e) => ({ ...e }) as Ev);
    for (const e of empty)
      if (e.type === 'content_block_delta') e.delta = { type: 'input_json_delta', partial_json: '' };
    const cutEmpty = framesOf([...upToToolStop(empty), ERROR]);
    expect(partialJsonViolations(cutEmpty, followStream(cutEmpty)).undetermined).toMatch(
      /^no tool input came as fragments/,
    );
  });
});

describe('ping and unknown names', () => {
  test('a ping whose data is not {type: ping} is a violation', () => {
    const frames = decodeFrames([encodeFrame('ping', '{"type":"pong"}'), encodeFrame('ping', '{}')]).frames;
    expect(pingViolations(frames)).toEqual({ pings: 2, violations: [expect.anything(), expect.anything()] });
  });

  test('event names and data types outside the spec are listed, SSE fields outside it apart', () => {
    const frames = decodeFrames([
      encodeFrame('wirecheck_debug', '{"type":"wirecheck_debug"}'),
      encodeEvent({ type: 'fancy' }),
    ]).frames;
    expect(unknownNameViolations(frames).map((v) => v.actual)).toEqual([
      'event wirecheck_debug',
      'event fancy',
    ]);
    expect(unknownFieldViolations(['bogus: 1']).map((v) => v.actual)).toEqual(['"bogus: 1"']);
  });

  test('a text block that starts with text is a violation; one that starts empty is not', () => {
    const frames = framesOf([
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: 'Hi' } },
      { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } },
      { type: 'content_block_start', index: 2, content_block: { type: 'thinking', thinking: '' } },
    ]);
    const verdict = textStartViolations(frames);
    expect(verdict.starts).toBe(2);
    expect(verdict.violations.map((v) => v.actual)).toEqual(['text "Hi"']);
  });
});

describe('failOn', () => {
  test('fails with the first violation and counts the rest', () => {
    expect(() =>
      failOn(
        [
          { where: 'frame 1', expected: 'a', actual: 'b' },
          { where: 'frame 2', expected: 'a', actual: 'c' },
        ],
        'rule',
      ),
    ).toThrow('rule: at frame 1: expected a, got b (and 1 more, e.g. frame 2)');
    expect(() => failOn([], 'rule')).not.toThrow();
  });
});
