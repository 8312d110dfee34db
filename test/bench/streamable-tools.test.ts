import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { QUICK_TOOL_SIZES } from '../../src/bench/main.js';
import { ECHO_TEXT, echoCall, echoCalls } from '../../src/bench/rpc-session.js';
import { streamableToolComparisons } from '../../src/bench/streamable-comparisons.js';
import { hostStreamableToolServers, type StreamableToolUrls } from '../../src/bench/streamable-servers.js';
import { initializeStreamable, openStreamableSession } from '../../src/bench/streamable-session.js';

describe('Streamable HTTP tool servers of the bench answer the same echo calls', () => {
  let hosted: { urls: StreamableToolUrls; close(): Promise<void> };
  beforeAll(async () => {
    hosted = await hostStreamableToolServers();
  }, 30_000);
  afterAll(async () => {
    await hosted.close();
  });

  test.each(['reference', 'referenceJson', 'sdk', 'sdkJson', 'raw'] as const)(
    '%s: initialize, then echo calls one at a time and 8 in flight',
    async (which) => {
      const session = openStreamableSession(hosted.urls[which]);
      try {
        await initializeStreamable(session);
        await echoCall(session);
        await echoCalls(session, 20, 8);
        const result = (await session.call('tools/call', {
          name: 'echo',
          arguments: { text: ECHO_TEXT },
        })) as {
          content: { text: string }[];
        };
        expect(result.content[0]!.text).toBe(ECHO_TEXT);
      } finally {
        session.close();
      }
    },
  );

  test('the comparisons: sequential and in flight, each with the SDK rows (goal 1.4) and the raw baseline', async () => {
    const { comparisons, close } = streamableToolComparisons(QUICK_TOOL_SIZES, hosted.urls);
    try {
      expect(comparisons.map((c) => c.title)).toEqual([
        `Streamable HTTP tool servers, ${QUICK_TOOL_SIZES.sequentialCalls} sequential tools/call round trips`,
        `Streamable HTTP tool servers, ${QUICK_TOOL_SIZES.inFlightCalls} tools/call round trips, ${QUICK_TOOL_SIZES.inFlight} in flight`,
      ]);
      const samples: Record<string, number[]> = {};
      for (const v of comparisons[1]!.variants) samples[v.name] = [Number(await v.run())];
      const rows = comparisons[1]!.rows(samples);
      expect(rows.map((r) => r.goal)).toEqual([1.4, 1.4, 0, 0]);
      for (const r of rows) expect(r.value).toBeGreaterThan(0);
    } finally {
      close();
    }
  });
});
