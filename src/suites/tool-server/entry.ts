import { shellQuote } from '../../harness/run-suite.js';
import { portForServerStart } from '../../harness/server-port.js';
import { WIRECHECK_BIN } from '../../package-root.js';
import type { SuiteEntry } from '../registry.js';
import { toolServerSuite } from './suite.js';
import { TOOL_SERVER_TARGET_OPTIONS, type ToolServerTarget, toolServerTargetFromOptions } from './target.js';

/**
 * The reference tool server as a stdio target command: `node bin/wirecheck.js serve tools
 * --transport stdio` (or `--transport sse|http --port N`, for `--start`, with `--keep-alive-ms`
 * when given).
 */
export function referenceToolServerCommand(
  transport: 'stdio' | 'sse' | 'http' = 'stdio',
  port = 0,
  keepAliveMs?: number,
): string {
  const keepAlive = keepAliveMs === undefined ? '' : ` --keep-alive-ms ${keepAliveMs}`;
  const args =
    transport === 'stdio' ? '--transport stdio' : `--transport ${transport} --port ${port}${keepAlive}`;
  return `${shellQuote(process.execPath)} ${shellQuote(WIRECHECK_BIN)} serve tools ${args}`;
}

/**
 * Keep-alive interval of the reference in `wirecheck all`. Any interval up to 15 s conforms;
 * with the default 15 s the keep-alive check waits for the second beat, and the suite, which
 * otherwise takes 3 to 6 s, takes 31 s. The tests run the reference with its default 15 s too.
 */
export const REFERENCE_RUN_KEEP_ALIVE_MS = 2_000;

/** The suite as the CLI registers it. */
export const toolServerSuiteEntry: SuiteEntry = {
  suite: toolServerSuite,
  targetOptions: TOOL_SERVER_TARGET_OPTIONS,
  targetFromOptions: toolServerTargetFromOptions,
  // The SSE transport: most of the suite's checks are about it (the stdio ones skip there).
  // The suite starts the server itself (--start) and stops it when the run ends; the
  // project's tests run the suite against the stdio transport of the reference too.
  async reference() {
    const port = await portForServerStart();
    const target: ToolServerTarget = {
      kind: 'sse',
      url: `http://127.0.0.1:${port}/sse`,
      start: referenceToolServerCommand('sse', port, REFERENCE_RUN_KEEP_ALIVE_MS),
    };
    return { target, close: async () => {} };
  },
  // `wirecheck all` runs the reference over the other two transports too.
  otherReferences: [
    {
      label: 'stdio',
      start: async () => ({
        target: { kind: 'stdio', command: referenceToolServerCommand('stdio') } satisfies ToolServerTarget,
        close: async () => {},
      }),
    },
    {
      label: 'streamable http',
      async start() {
        const port = await portForServerStart();
        const target: ToolServerTarget = {
          kind: 'http',
          url: `http://127.0.0.1:${port}/mcp`,
          start: referenceToolServerCommand('http', port),
        };
        return { target, close: async () => {} };
      },
    },
  ],
};
