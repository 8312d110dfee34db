import type { Comparison } from './comparisons.js';
import type { Variant } from './interleave.js';
import { comparisonRow } from './rows.js';
import { echoCalls, type RpcSession } from './rpc-session.js';
import type { StreamableToolUrls } from './streamable-servers.js';
import { initializeStreamable, openStreamableSession } from './streamable-session.js';
import { MCP_SDK_GOAL, TOOL_ROUNDS, type ToolSizes } from './tool-comparisons.js';

const RATE = 'round trips/s';

/** round trips/s of `calls` echo calls, `inFlight` at a time, over one session opened (and initialized) once. */
function variant(name: string, url: string, opened: RpcSession[], calls: number, inFlight: number): Variant {
  let session: Promise<RpcSession> | undefined;
  return {
    name,
    run: async () => {
      session ??= (async () => {
        const s = openStreamableSession(url);
        opened.push(s);
        await initializeStreamable(s);
        return s;
      })();
      const s = await session;
      const start = performance.now();
      await echoCalls(s, calls, inFlight);
      return calls / ((performance.now() - start) / 1000);
    },
  };
}

/**
 * tools/call round trips of the reference tool server over Streamable HTTP against the MCP
 * SDK's StreamableHTTPServerTransport (same echo tool; event-stream answers, the default of
 * both, and JSON answers), beside a raw node:http JSON echo: one session, sequential and many
 * in flight. Sessions stay open across rounds; `close` ends them.
 */
export function streamableToolComparisons(
  sizes: ToolSizes,
  urls: StreamableToolUrls,
): { comparisons: Comparison[]; close(): void } {
  const opened: RpcSession[] = [];
  const over = (calls: number, inFlight: number) =>
    (['reference', 'sdk', 'referenceJson', 'sdkJson', 'raw'] as const).map((name) =>
      variant(name, urls[name], opened, calls, inFlight),
    );
  const rows = (shape: string) => (s: Readonly<Record<string, number[]>>) => [
    comparisonRow(
      `tool server/MCP SDK StreamableHTTPServerTransport, event-stream answers, ${shape}`,
      RATE,
      MCP_SDK_GOAL,
      s.reference!,
      s.sdk!,
    ),
    comparisonRow(
      `tool server/MCP SDK StreamableHTTPServerTransport, JSON answers, ${shape}`,
      RATE,
      MCP_SDK_GOAL,
      s.referenceJson!,
      s.sdkJson!,
    ),
    comparisonRow(
      `tool server, JSON answers/raw node:http JSON echo, ${shape}`,
      RATE,
      0,
      s.referenceJson!,
      s.raw!,
    ),
    comparisonRow(
      `MCP SDK StreamableHTTPServerTransport, JSON answers/raw node:http JSON echo, ${shape}`,
      RATE,
      0,
      s.sdkJson!,
      s.raw!,
    ),
  ];
  const sequential = `${sizes.sequentialCalls} sequential tools/call round trips`;
  const inFlight = `${sizes.inFlightCalls} tools/call round trips, ${sizes.inFlight} in flight`;
  return {
    comparisons: [
      {
        title: `Streamable HTTP tool servers, ${sequential}`,
        rounds: TOOL_ROUNDS,
        variants: over(sizes.sequentialCalls, 1),
        rows: rows(sequential),
      },
      {
        title: `Streamable HTTP tool servers, ${inFlight}`,
        rounds: TOOL_ROUNDS,
        variants: over(sizes.inFlightCalls, sizes.inFlight),
        rows: rows(inFlight),
      },
    ],
    close: () => {
      for (const s of opened) s.close();
    },
  };
}
