import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchScript, type ChildServer, startChild } from './child-server.js';
import type { Comparison } from './comparisons.js';
import type { Variant } from './interleave.js';
import { comparisonRow } from './rows.js';
import { echoCalls, initialize, openSseSession, type RpcSession, stdioSession } from './rpc-session.js';
import type { ToolUrls } from './tool-servers.js';

export interface ToolSizes {
  /** tools/call round trips per sample, one at a time. */
  sequentialCalls: number;
  /** Calls in flight at once over one session, and calls per sample. */
  inFlight: number;
  inFlightCalls: number;
  /** Sessions open at once, and calls each makes (one at a time) per sample. */
  sessions: number;
  callsPerSession: number;
  /** The same over stdio. */
  stdioSequentialCalls: number;
  stdioInFlightCalls: number;
}

/** The reference tool server against a raw echo: its protocol work may cost a quarter more than echoing. */
export const RAW_ECHO_GOAL = 0.8;
/** The goal against the MCP SDK's legacy SSE transport. */
export const MCP_SDK_GOAL = 1.4;
export const TOOL_ROUNDS = 7;

const RATE = 'round trips/s';

function seconds(since: number): number {
  return (performance.now() - since) / 1000;
}

/** round trips/s of `calls` echo calls, `inFlight` at a time, over a session opened (and initialized) once. */
function sessionVariant(
  name: string,
  open: () => Promise<RpcSession>,
  opened: RpcSession[],
  calls: number,
  inFlight: number,
): Variant {
  let session: Promise<RpcSession> | undefined;
  return {
    name,
    run: async () => {
      session ??= open().then(async (s) => {
        opened.push(s);
        await initialize(s);
        return s;
      });
      const s = await session;
      const start = performance.now();
      await echoCalls(s, calls, inFlight);
      return calls / seconds(start);
    },
  };
}

/** round trips/s of `sessions` SSE sessions at once, each making `calls` calls one at a time (opening not timed). */
function sessionsVariant(name: string, url: string, sessions: number, calls: number): Variant {
  return {
    name,
    run: async () => {
      const opened = await Promise.all(Array.from({ length: sessions }, () => openSseSession(url)));
      try {
        await Promise.all(opened.map(initialize));
        const start = performance.now();
        await Promise.all(opened.map((s) => echoCalls(s, calls, 1)));
        return (sessions * calls) / seconds(start);
      } finally {
        for (const s of opened) s.close();
      }
    },
  };
}

function sseRows(shape: string, s: Readonly<Record<string, number[]>>) {
  return [
    comparisonRow(`tool server/raw JSON-RPC SSE echo, ${shape}`, RATE, RAW_ECHO_GOAL, s.reference!, s.raw!),
    comparisonRow(
      `tool server/MCP SDK SSEServerTransport, ${shape}`,
      RATE,
      MCP_SDK_GOAL,
      s.reference!,
      s.sdk!,
    ),
    comparisonRow(`MCP SDK SSEServerTransport/raw JSON-RPC SSE echo, ${shape}`, RATE, 0, s.sdk!, s.raw!),
  ];
}

/**
 * tools/call round trips of the reference SSE tool server against a raw JSON-RPC-over-SSE
 * echo and the MCP SDK's SSE server: one session sequential, one session with many
 * calls in flight, many sessions at once (reference and raw). Sessions of the first two
 * stay open across rounds; `close` ends them.
 */
export function sseToolComparisons(
  sizes: ToolSizes,
  urls: ToolUrls,
): { comparisons: Comparison[]; close(): void } {
  const opened: RpcSession[] = [];
  const servers = [
    { name: 'reference', url: urls.reference },
    { name: 'raw', url: urls.raw },
    { name: 'sdk', url: urls.sdk },
  ];
  const over = (calls: number, inFlight: number) =>
    servers.map(({ name, url }) => sessionVariant(name, () => openSseSession(url), opened, calls, inFlight));
  const sequential = `${sizes.sequentialCalls} sequential tools/call round trips`;
  const inFlight = `${sizes.inFlightCalls} tools/call round trips, ${sizes.inFlight} in flight`;
  const many = `${sizes.sessions} sessions at once x ${sizes.callsPerSession} sequential tools/call round trips`;
  return {
    comparisons: [
      {
        title: `SSE tool servers, ${sequential}`,
        rounds: TOOL_ROUNDS,
        variants: over(sizes.sequentialCalls, 1),
        rows: (s) => sseRows(sequential, s),
      },
      {
        title: `SSE tool servers, ${inFlight}`,
        rounds: TOOL_ROUNDS,
        variants: over(sizes.inFlightCalls, sizes.inFlight),
        rows: (s) => sseRows(inFlight, s),
      },
      {
        title: `SSE tool servers, ${many}`,
        rounds: TOOL_ROUNDS,
        variants: [
          sessionsVariant('reference', urls.reference, sizes.sessions, sizes.callsPerSession),
          sessionsVariant('raw', urls.raw, sizes.sessions, sizes.callsPerSession),
        ],
        rows: (s) => [
          comparisonRow(
            `tool server/raw JSON-RPC SSE echo, ${many}`,
            RATE,
            RAW_ECHO_GOAL,
            s.reference!,
            s.raw!,
          ),
        ],
      },
    ],
    close: () => {
      for (const s of opened) s.close();
    },
  };
}

/** `node bin/wirecheck.js`, from src/bench (tests) and dist/bench alike. */
function wirecheckBin(): string {
  return join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'wirecheck.js');
}

/**
 * tools/call round trips of the reference server over stdio (`wirecheck serve tools
 * --transport stdio`) against a raw child-process echo, sequential and many in flight.
 * Both children start once; `close` ends them.
 */
export async function stdioToolComparisons(
  sizes: ToolSizes,
): Promise<{ comparisons: Comparison[]; close(): Promise<void> }> {
  const children: ChildServer[] = [];
  const close = async () => {
    await Promise.allSettled(children.map((c) => c.close()));
  };
  try {
    const start = async (argv: string[], where: string) => {
      const child = await startChild(argv, { waitForLine: false });
      children.push(child);
      const session = stdioSession(child.child.stdin!, child.child.stdout!, where);
      await initialize(session);
      return session;
    };
    const reference = await start(
      [process.execPath, wirecheckBin(), 'serve', 'tools', '--transport', 'stdio'],
      'wirecheck serve tools --transport stdio',
    );
    const raw = await start([process.execPath, benchScript('stdio-echo-child.js')], 'raw stdio echo');
    const variant = (name: string, session: RpcSession, calls: number, inFlight: number): Variant => ({
      name,
      run: async () => {
        const t = performance.now();
        await echoCalls(session, calls, inFlight);
        return calls / seconds(t);
      },
    });
    const stdioRows = (shape: string) => (s: Readonly<Record<string, number[]>>) => [
      comparisonRow(
        `tool server over stdio/raw child-process echo, ${shape}`,
        RATE,
        RAW_ECHO_GOAL,
        s.reference!,
        s.raw!,
      ),
    ];
    const sequential = `${sizes.stdioSequentialCalls} sequential tools/call round trips`;
    const inFlight = `${sizes.stdioInFlightCalls} tools/call round trips, ${sizes.inFlight} in flight`;
    return {
      comparisons: [
        {
          title: `stdio tool servers, ${sequential}`,
          rounds: TOOL_ROUNDS,
          variants: [
            variant('reference', reference, sizes.stdioSequentialCalls, 1),
            variant('raw', raw, sizes.stdioSequentialCalls, 1),
          ],
          rows: stdioRows(sequential),
        },
        {
          title: `stdio tool servers, ${inFlight}`,
          rounds: TOOL_ROUNDS,
          variants: [
            variant('reference', reference, sizes.stdioInFlightCalls, sizes.inFlight),
            variant('raw', raw, sizes.stdioInFlightCalls, sizes.inFlight),
          ],
          rows: stdioRows(inFlight),
        },
      ],
      close,
    };
  } catch (e) {
    await close();
    throw e;
  }
}
