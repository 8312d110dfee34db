import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { bytesOfChunk, type ToolSession } from '../../../src/fixtures/index.js';
import { type ToolReplayPlan, toolReplayPlanOf } from '../../../src/mocks/tools/replay-plan.js';

// The steps of an SSE replay are cut from the recorded chunks. Each frame's pieces were found by
// walking every chunk: 23 s to plan a session of 40,000 messages.

const ENDPOINT = 'event: endpoint\ndata: /messages?sessionId=1\n\n';
const dataOf = (i: number) =>
  JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { i } });

/** An SSE session whose stream is `body` cut at `cuts`, its messages those of `data`. */
function sessionOf(body: string, cuts: readonly number[], data: readonly string[]): ToolSession {
  const bytes = Buffer.from(body);
  const at = [...new Set([0, ...cuts.filter((c) => c > 0 && c < bytes.length), bytes.length])].sort(
    (a, b) => a - b,
  );
  const chunks = at
    .slice(1)
    .map((end, i) => ({ atMs: i, text: bytes.subarray(at[i], end).toString('latin1') }));
  return {
    format: 'wirecheck-fixture',
    version: 1,
    kind: 'tool-session',
    transport: 'sse',
    server: 'http://127.0.0.1:1/sse',
    messages: data.map((text, i) => ({ atMs: i, direction: 'server->client' as const, text })),
    endAtMs: chunks.length,
    stream: {
      path: '/sse',
      requestHeaders: {},
      status: 200,
      headers: { 'content-type': 'text/event-stream' },
      headersAtMs: 0,
      endpoint: '/messages?sessionId=1',
      chunks,
      end: 'complete',
      endAtMs: chunks.length,
    },
  };
}

/** Each step as [kind, [chunk index, text] of each part]. */
const shape = (plan: ToolReplayPlan) =>
  plan.steps.map((s) => [s.kind, s.parts.map((p) => [p.chunk, p.bytes.toString('latin1')])]);

describe('the replay plan of an SSE session: steps cut from the recorded chunks', () => {
  test('frames across chunks, several in one chunk, comments between', () => {
    const [a, b] = [dataOf(0), dataOf(1)];
    const body = `${ENDPOINT}: keep-alive\n\nevent: message\ndata: ${a}\n\nevent: message\ndata: ${b}\n\n`;
    const second = body.indexOf('event: message', body.indexOf(a));
    const cuts = [ENDPOINT.length, ENDPOINT.length + 5, body.indexOf(a) + 10, second, second + 3];
    const plan = toolReplayPlanOf(sessionOf(body, cuts, [a, b]));
    expect(shape(plan)).toEqual([
      ['raw', [[1, ': kee']]],
      ['raw', [[2, 'p-alive\n\n']]],
      [
        'message',
        [
          [2, `event: message\ndata: ${a.slice(0, 10)}`],
          [3, `${a.slice(10)}\n\n`],
        ],
      ],
      [
        'message',
        [
          [4, 'eve'],
          [5, `nt: message\ndata: ${b}\n\n`],
        ],
      ],
    ]);
    expect(plan.steps.filter((s) => s.kind === 'message').map((s) => s.text)).toEqual([a, b]);
  });

  test('property: the parts are the stream after the endpoint, in order, each within its chunk, none split without a chunk boundary', () => {
    const item = fc.oneof(
      fc.nat(1000).map((i) => ({ data: dataOf(i) })),
      fc.constantFrom(': keep-alive\n\n', '\n', 'event: other\ndata: x\n\n').map((raw) => ({ raw })),
    );
    fc.assert(
      fc.property(
        fc.array(item, { maxLength: 12 }),
        fc.array(fc.nat(2000), { maxLength: 30 }),
        (items, cuts) => {
          const body =
            ENDPOINT +
            items.map((i) => ('data' in i ? `event: message\ndata: ${i.data}\n\n` : i.raw)).join('');
          const data = items.flatMap((i) => ('data' in i ? [i.data] : []));
          const session = sessionOf(body, cuts, data);
          const chunks = session.stream!.chunks.map(bytesOfChunk);
          const starts = chunks.map((_, i) => chunks.slice(0, i).reduce((n, c) => n + c.length, 0));
          const plan = toolReplayPlanOf(session);
          let offset = ENDPOINT.length;
          for (const step of plan.steps) {
            if (step.kind === 'raw') expect(step.parts).toHaveLength(1);
            for (const [k, part] of step.parts.entries()) {
              const chunk = chunks[part.chunk]!;
              const within = offset - starts[part.chunk]!;
              expect(within).toBeGreaterThanOrEqual(0);
              expect(part.bytes.equals(chunk.subarray(within, within + part.bytes.length))).toBe(true);
              if (k > 0) expect(part.chunk).toBe(step.parts[k - 1]!.chunk + 1);
              offset += part.bytes.length;
            }
          }
          expect(offset).toBe(Buffer.byteLength(body));
          expect(plan.steps.filter((s) => s.kind === 'message').map((s) => s.text)).toEqual(data);
        },
      ),
      { numRuns: 300 },
    );
  });

  test('a session of one-frame chunks is planned in linear time (40,000 took 23 s when it was quadratic)', () => {
    /** A session of `n` frames, each its own chunk, and the ms its plan took (the best of three). */
    const planned = (n: number) => {
      const data = Array.from({ length: n }, (_, i) => dataOf(i));
      const frames = data.map((d) => `event: message\ndata: ${d}\n\n`);
      const cuts: number[] = [];
      for (let at = ENDPOINT.length, i = 0; i < frames.length; at += frames[i]!.length, i++) cuts.push(at);
      const session = sessionOf(ENDPOINT + frames.join(''), cuts, data);
      let plan: ToolReplayPlan | undefined;
      let best = Number.POSITIVE_INFINITY;
      for (let run = 0; run < 3; run++) {
        const t0 = performance.now();
        plan = toolReplayPlanOf(session);
        best = Math.min(best, performance.now() - t0);
      }
      return { plan: plan!, ms: best };
    };
    planned(2_000); // warms the code up, so that neither measured size pays for it
    const small = planned(10_000);
    const large = planned(40_000);
    expect(large.plan.steps).toHaveLength(40_000);
    expect(large.plan.steps[39_999]?.parts.map((p) => p.chunk)).toEqual([40_000]);
    // Four times the chunks: about four times the time when linear, sixteen when quadratic.
    // A ratio measured side by side holds on a loaded machine, where a bound in ms does not.
    expect(large.ms / small.ms, `10,000 chunks: ${small.ms} ms; 40,000: ${large.ms} ms`).toBeLessThan(10);
  }, 60_000);
});
