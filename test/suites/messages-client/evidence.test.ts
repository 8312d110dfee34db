import { describe, expect, test } from 'vitest';
import type { Evidence } from '../../../src/harness/results.js';
import type { JournalEntry } from '../../../src/mocks/messages/index.js';
import { MIXED_MESSAGE } from '../../../src/suites/messages-client/messages.js';
import { servedFramesEvidence } from '../../../src/suites/messages-client/served-frames.js';
import { nodeCommand, runAgainst } from './helpers.js';

const P = 'messages-client.';

/** A journal entry of a streamed request the mock answered with 200, as the picture needs it. */
function streamed(seed: number): JournalEntry {
  return { stream: true, status: 200, seed, requestId: 'req_1' } as unknown as JournalEntry;
}

function frames(evidence: Evidence | undefined) {
  if (evidence?.kind !== 'frames') throw new Error(`not a frames picture: ${JSON.stringify(evidence)}`);
  return evidence;
}

describe('the frames the mock served, replayed for the report', () => {
  test('an error event injected mid-stream is the marked frame', () => {
    const e = frames(
      servedFramesEvidence(MIXED_MESSAGE, undefined, { errorEvent: { atFrame: 3 } }, [streamed(7)]),
    );
    expect(e.frames[0]!.event).toBe('message_start');
    expect(e.mark).toBe(3);
    expect(e.frames[3]!.event).toBe('error');
  });

  test('a frame whose data is not JSON is the marked frame; comments are kept in place', () => {
    const e = frames(
      servedFramesEvidence(
        MIXED_MESSAGE,
        undefined,
        { malformed: [{ atFrame: 2, kind: 'invalid-json' }], comments: { at: [1] } },
        [streamed(7)],
      ),
    );
    expect(e.frames.filter((f) => f.comment)).toHaveLength(1);
    expect(e.frames[e.mark!]!.event).toBe('content_block_delta');
    expect(() => JSON.parse(e.frames[e.mark!]!.data)).toThrow();
  });

  test('no streamed request, no picture', () => {
    expect(servedFramesEvidence(MIXED_MESSAGE, undefined, undefined, [])).toBeUndefined();
  });
});

describe('a failing stream check carries the frames the mock served', () => {
  test('a client that accepts a stream cut after the first text delta: the picture ends there', async () => {
    const id = `${P}stream-errors.disconnect`;
    const result = await runAgainst(nodeCommand('./broken/accept-truncated.mjs'), { only: [id] });
    const check = result.checks[0]!;
    expect(check.status).toBe('fail');
    const e = frames(check.evidence);
    expect(e.frames.map((f) => f.event).slice(-1)).toEqual(['content_block_delta']);
    expect(e.frames.some((f) => f.event === 'message_stop')).toBe(false);
    expect(e.title).toContain('frames the mock served');
  }, 60_000);

  test('a client that crashes on a ping: the picture holds the pings it was sent', async () => {
    const id = `${P}stream.pings`;
    const result = await runAgainst(nodeCommand('./broken/crash-on-ping.mjs'), { only: [id] });
    const check = result.checks[0]!;
    expect(check.status).toBe('fail');
    expect(frames(check.evidence).frames.filter((f) => f.event === 'ping').length).toBeGreaterThan(0);
  }, 60_000);
});
