import type { Readable, Writable } from 'node:stream';
import type { Implementation } from '../../protocol/mcp/index.js';
import { OUTPUT_ALLOWANCE_BYTES } from '../../transports/output-pace.js';
import { StreamTransport } from '../../transports/stream.js';
import { createToolServerCore, type ToolServerCore, type ToolServerSession } from './core.js';
import { REFERENCE_TOOLS } from './reference-tools.js';
import { serveSession } from './serve-session.js';
import type { McpToolDefinition } from './tool.js';

export interface StdioToolServerOptions {
  /** Where requests arrive: the process's stdin. */
  readonly input: Readable;
  /** Where replies go, and nothing else: the process's stdout. */
  readonly output: Writable;
  /** Logs; never the output stream (spec "Tool server, stdio transport"). */
  readonly log?: (line: string) => void;
  readonly tools?: readonly McpToolDefinition[];
  readonly serverInfo?: Implementation;
}

export interface StdioToolServer {
  readonly core: ToolServerCore;
  readonly session: ToolServerSession;
  /** Resolves when the input ended (or close was called); in-flight calls were aborted by then. */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

/**
 * The reference tool server over stdio: one session for the life of the process.
 * Newline-delimited JSON; a line that is not JSON is answered -32700 and the server reads
 * on (a client reading a server's stdout closes instead; a server's stdin need not).
 */
export async function serveToolsOverStdio(options: StdioToolServerOptions): Promise<StdioToolServer> {
  const log = options.log ?? (() => {});
  const core = createToolServerCore({
    tools: options.tools ?? REFERENCE_TOOLS,
    log,
    ...(options.serverInfo === undefined ? {} : { serverInfo: options.serverInfo }),
  });
  const transport = new StreamTransport({
    input: options.input,
    output: options.output,
    closeOnParseError: false,
    label: 'stdin',
    outputAllowanceBytes: OUTPUT_ALLOWANCE_BYTES,
    readsLastLine: true,
  });
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  const session = serveSession(core, transport, { transport: 'stdio', log, onClose: () => resolveClosed() });
  await transport.start();
  return {
    core,
    session,
    closed,
    close: async () => {
      await transport.close();
      await closed;
    },
  };
}
