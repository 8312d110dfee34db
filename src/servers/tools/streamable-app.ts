import type { Server } from 'node:http';
import { PROTOCOL_REVISIONS, type ProtocolRevision } from '../../protocol/mcp/index.js';
import { STREAMABLE_HTTP_DEFAULT_PATH } from '../../protocol/mcp/streamable-http.js';
import { nodeHttp } from '../../transports/node-http.js';
import { limitRequestTime, REQUEST_TIMEOUT_MS } from '../http/body-budget.js';
import { listenHttp, originOf } from '../http/listen.js';
import {
  createStreamableEndpoint,
  type StreamableEndpoint,
  type StreamableEndpointOptions,
} from '../http/streamable-endpoint.js';
import { createToolServerCore, type ToolServerCore } from './core.js';
import { REFERENCE_TOOLS } from './reference-tools.js';
import type { ToolServerOptions } from './sse-app.js';

/**
 * The versions the reference server speaks over Streamable HTTP: every revision, as over stdio and SSE
 * (2024-11-05 is answered when asked: its messages are the same); a client asking for another gets
 * the latest.
 */
export const STREAMABLE_TOOL_SERVER_VERSIONS: readonly ProtocolRevision[] = PROTOCOL_REVISIONS;

export interface StreamableToolServerOptions
  extends ToolServerOptions,
    Pick<
      StreamableEndpointOptions,
      'path' | 'answer' | 'maxSessions' | 'sessionIdleMs' | 'replayLimitBytes' | 'replayBudgetBytes'
    > {
  /** Default 127.0.0.1. */
  readonly host?: string;
  /** Default 0: a free port. */
  readonly port?: number;
}

export interface RunningStreamableToolServer {
  /** The endpoint's URL, e.g. `http://127.0.0.1:41234/mcp`. */
  readonly url: string;
  readonly origin: string;
  readonly port: number;
  readonly server: Server;
  readonly core: ToolServerCore;
  readonly endpoint: StreamableEndpoint;
  sessionCount(): number;
  inFlightCount(): number;
  /** End every session and stream and stop listening. */
  close(): Promise<void>;
}

/** The reference tool server's Streamable HTTP endpoint on its own core (not listening). */
export function buildStreamableToolServer(options: StreamableToolServerOptions = {}): {
  readonly core: ToolServerCore;
  readonly endpoint: StreamableEndpoint;
} {
  const log = options.log ?? (() => {});
  const core = createToolServerCore({
    tools: options.tools ?? REFERENCE_TOOLS,
    log,
    protocolVersions: STREAMABLE_TOOL_SERVER_VERSIONS,
    ...(options.serverInfo === undefined ? {} : { serverInfo: options.serverInfo }),
  });
  const endpoint = createStreamableEndpoint({
    ...options,
    log,
    protocolVersions: STREAMABLE_TOOL_SERVER_VERSIONS,
    ...(options.keepAliveMs === undefined ? {} : { keepAliveMs: options.keepAliveMs }),
    openSession: (id) => core.openSession({ id, transport: 'http' }),
  });
  return { core, endpoint };
}

/** The reference tool server over Streamable HTTP, listening (node:http, backlog 4096). */
export async function startStreamableToolServer(
  options: StreamableToolServerOptions = {},
): Promise<RunningStreamableToolServer> {
  const { host = '127.0.0.1', port = 0 } = options;
  const { core, endpoint } = buildStreamableToolServer({ ...options, host });
  const server = nodeHttp.createServer((req, res) => endpoint.handle(req, res));
  server.keepAliveTimeout = 65_000;
  // Node's default is 300 s: a POST whose body stalls would hold its connection for as long.
  limitRequestTime(server, options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS);
  const address = await listenHttp(server, { host, port, backlog: 4096 });
  const origin = originOf(address);
  return {
    url: `${origin}${options.path ?? STREAMABLE_HTTP_DEFAULT_PATH}`,
    origin,
    port: address.port,
    server,
    core,
    endpoint,
    sessionCount: () => endpoint.sessionCount(),
    inFlightCount: () => core.inFlightCount(),
    close: async () => {
      endpoint.close();
      core.closeAll();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
