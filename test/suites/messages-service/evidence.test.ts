import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { CheckResult } from '../../../src/harness/results.js';
import { runSuite } from '../../../src/harness/run-suite.js';
import { streamEvidence } from '../../../src/suites/messages-service/evidence.js';
import { createMessagesServiceSuite } from '../../../src/suites/messages-service/index.js';
import type { StreamedReply } from '../../../src/suites/messages-service/replies.js';
import { startFakeService } from './fake-service.js';

const KEY_ENV = 'WIRECHECK_TEST_MESSAGES_SERVICE_EVIDENCE_KEY';
const KEY = 'wc-test-key-messages-service-evidence';

function reply(frames: number, extra: Partial<StreamedReply> = {}): StreamedReply {
  return {
    status: 200,
    headers: {},
    frames: Array.from({ length: frames }, (_, i) => ({
      event: 'ping',
      data: `{"type":"ping","n":${i}}`,
      id: undefined,
    })),
    unterminated: '',
    invalidLines: [],
    text: '',
    aborted: false,
    readError: undefined,
    frameTimesMs: Array.from({ length: frames }, (_, i) => i * 2),
    ...extra,
  };
}

describe('stream evidence', () => {
  test('frames keep their arrival times, comments sit where they arrived, and the offending frame is marked', () => {
    const evidence = streamEvidence(
      'text stream',
      reply(3, { comments: [{ text: 'hi', atMs: 1, afterFrames: 1 }] }),
      2,
    );
    expect(evidence).toEqual({
      kind: 'frames',
      title: 'text stream',
      mark: 3,
      frames: [
        { atMs: 0, event: 'ping', data: '{"type":"ping","n":0}' },
        { atMs: 1, data: 'hi', comment: true },
        { atMs: 2, event: 'ping', data: '{"type":"ping","n":1}' },
        { atMs: 4, event: 'ping', data: '{"type":"ping","n":2}' },
      ],
    });
  });

  test('a huge stream keeps a window around the offending frame and says which', () => {
    const evidence = streamEvidence('tool stream', reply(5000), 4200);
    if (evidence.kind !== 'frames') throw new Error('not frames');
    expect(evidence.frames).toHaveLength(1000);
    expect(evidence.frames[evidence.mark!]!.data).toBe('{"type":"ping","n":4200}');
    expect(evidence.title).toBe(
      'tool stream: items 3700-4699 of 5000 (frames and comments); #0 here is item 3700',
    );
  });
});

describe('a stream check failure carries the stream as evidence', () => {
  beforeAll(() => {
    process.env[KEY_ENV] = KEY;
  });
  afterAll(() => {
    delete process.env[KEY_ENV];
  });

  async function failureOf(breaks: 'out-of-order' | 'usage-in-delta', id: string): Promise<CheckResult> {
    const fake = await startFakeService({ apiKey: KEY, breaks: [breaks] });
    try {
      const result = await runSuite(
        createMessagesServiceSuite({ abortSettleMs: 0 }),
        { baseUrl: fake.baseUrl, apiKeyEnv: KEY_ENV },
        { seed: 20261101, runs: 1, only: [id] },
      );
      const check = result.checks.find((c) => c.id === id);
      expect(check?.status).toBe('fail');
      return check!;
    } finally {
      await fake.close();
    }
  }

  test.each([
    ['out-of-order', 'messages-service.stream.order'],
    ['usage-in-delta', 'messages-service.stream.no-usage-in-deltas'],
  ] as const)('%s: the marked frame is the one the message names', async (breaks, id) => {
    const check = await failureOf(breaks, id);
    const evidence = check.evidence;
    if (evidence?.kind !== 'frames') throw new Error(`no frames evidence on ${id}: ${JSON.stringify(check)}`);
    const named = /frame (\d+) «event: ([a-z_]+)/.exec(check.message);
    expect(named).not.toBeNull();
    expect(evidence.mark).toBe(Number(named![1]));
    expect(evidence.frames[evidence.mark!]!.event).toBe(named![2]);
    expect(evidence.frames[0]!.atMs).toBe(0);
    const times = evidence.frames.map((f) => f.atMs);
    expect([...times].sort((a, b) => a - b)).toEqual(times);
  });
});
