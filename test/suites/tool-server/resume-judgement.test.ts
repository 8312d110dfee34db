import { describe, expect, test } from 'vitest';
import {
  otherStreamMessages,
  type ResumeTrial,
  replayFaults,
} from '../../../src/suites/tool-server/checks/streamable-resume.js';

// The pure judgement of a resumed stream (tool-server.http.resume-same-stream and
// tool-server.http.resume-replays-after), case by case.

const response = (id: number) => ({ jsonrpc: '2.0', id, result: {} });
const text = (m: unknown) => JSON.stringify(m);
const event = (id: string, m: unknown) => ({ id, data: text(m), message: m });

function trial(replayed: ReturnType<typeof event>[], over: Partial<ResumeTrial> = {}): ResumeTrial {
  return {
    from: '2-1',
    requestId: 2,
    upTo: [],
    after: [text(response(2))],
    others: [text(response(1)), text(response(3))],
    otherRequestIds: new Set([1, 3]),
    answer: { status: 200, contentType: 'text/event-stream', events: replayed },
    ...over,
  };
}

describe('judging a resumed stream', () => {
  test('the message after the id, once: no fault', () => {
    const t = trial([event('2-2', response(2))]);
    expect(otherStreamMessages(t)).toEqual([]);
    expect(replayFaults(t)).toEqual([]);
  });

  test('a response to a request of another stream is named', () => {
    const t = trial([event('2-2', response(2)), event('3-2', response(3))]);
    expect(otherStreamMessages(t)).toEqual([text(response(3))]);
    expect(replayFaults(t)).toEqual([]);
  });

  test('a message twice, one the client had, one missing: each is a fault', () => {
    expect(replayFaults(trial([event('2-2', response(2)), event('2-2', response(2))]))).toEqual([
      expect.stringMatching(/^replayed 2 times/),
    ]);
    expect(
      replayFaults(trial([event('2-1', response(2))], { upTo: [text(response(2))], after: [] })),
    ).toEqual([expect.stringMatching(/already has/)]);
    expect(replayFaults(trial([]))).toEqual([expect.stringMatching(/^did not replay/)]);
  });

  test('a message the stream carried twice after the id is replayed twice without fault; three times is one too many', () => {
    const note = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'tick' } };
    const after = [text(note), text(note), text(response(2))];
    const twice = [event('2-2', note), event('2-3', note), event('2-4', response(2))];
    expect(replayFaults(trial(twice, { after }))).toEqual([]);
    expect(replayFaults(trial([...twice, event('2-5', note)], { after }))).toEqual([
      expect.stringMatching(/^replayed 3 times/),
    ]);
  });

  test('a priming event (empty data) is no message', () => {
    const t = trial([{ id: '2-1', data: '', message: undefined }, event('2-2', response(2))]);
    expect(replayFaults(t)).toEqual([]);
    expect(otherStreamMessages(t)).toEqual([]);
  });
});
