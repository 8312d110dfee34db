import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { originOf } from '../http/listen.js';
import type { ToolServerCore } from './core.js';
import { buildToolServer, STREAM_PATH, type ToolServerOptions } from './sse-app.js';

export interface StartToolServerOptions extends ToolServerOptions {
  /** Default 127.0.0.1. */
  readonly host?: string;
  /** Default 0: a free port. */
  readonly port?: number;
}

export interface RunningToolServer {
  /** The event stream's URL, e.g. `http://127.0.0.1:41234/sse` (the real port when 0 was asked). */
  readonly url: string;
  /** `http://host:port`, without a path. */
  readonly origin: string;
  readonly port: number;
  readonly app: FastifyInstance;
  readonly core: ToolServerCore;
  sessionCount(): number;
  inFlightCount(): number;
  /** End every stream (sessions are de-allocated) and stop listening. */
  close(): Promise<void>;
}

/** The SSE tool server, listening (backlog 4096: bursts of connects stall the default 511). */
export async function startToolServer(options: StartToolServerOptions = {}): Promise<RunningToolServer> {
  const { host = '127.0.0.1', port = 0, ...rest } = options;
  const built = buildToolServer({ host, ...rest });
  await built.app.listen({ host, port, backlog: 4096 });
  const address = built.app.server.address() as AddressInfo;
  const origin = originOf(address);
  return {
    url: `${origin}${STREAM_PATH}`,
    origin,
    port: address.port,
    app: built.app,
    core: built.core,
    sessionCount: built.sessionCount,
    inFlightCount: () => built.core.inFlightCount(),
    close: () => built.app.close(),
  };
}
