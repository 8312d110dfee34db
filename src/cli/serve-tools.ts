import type { Command } from 'commander';
import { z } from 'zod';
import { WirecheckError } from '../harness/errors.js';
import type { CliContext, OutputStream } from './context.js';
import { integer, parseOptions } from './options.js';

/** What `wirecheck serve tools` asks of the reference tool server (src/servers/tools). */
export interface ServeToolsOptions {
  readonly transport: 'stdio' | 'sse';
  readonly host: string;
  readonly port: number;
  readonly keepAliveMs: number;
}

export interface ServeToolsIo {
  readonly stdin: CliContext['stdin'];
  /** Protocol messages only, in stdio mode; the stream URL line in sse mode. */
  readonly stdout: OutputStream;
  /** One log line (to stderr). */
  log(line: string): void;
  /** Aborted on SIGINT/SIGTERM. */
  readonly signal: AbortSignal;
}

/** Runs the server until `signal` aborts (or, over stdio, stdin ends); rejects when it cannot start. */
export type ServeTools = (options: ServeToolsOptions, io: ServeToolsIo) => Promise<void>;

export const DEFAULT_TOOLS_HOST = '127.0.0.1';
export const DEFAULT_TOOLS_PORT = 8000;
export const DEFAULT_KEEP_ALIVE_MS = 15_000;

const ServeToolsInput = z.object({
  transport: z.enum(['stdio', 'sse'], '--transport (or MCP_TRANSPORT) is stdio or sse'),
  host: z.string().min(1, '--host (or MCP_HOST) must not be empty'),
  port: integer('--port (or MCP_PORT)', 0, 65535),
  keepAliveMs: integer('--keep-alive-ms', 0, 3_600_000),
});

/** A flag beats the environment, which beats the default; an empty variable counts as unset. */
export function serveToolsOptionsOf(raw: Record<string, unknown>, env: NodeJS.ProcessEnv): ServeToolsOptions {
  const fromEnv = (name: string): string | undefined => (env[name] === '' ? undefined : env[name]);
  return parseOptions(ServeToolsInput, {
    transport: raw.transport ?? fromEnv('MCP_TRANSPORT') ?? 'sse',
    host: raw.host ?? fromEnv('MCP_HOST') ?? DEFAULT_TOOLS_HOST,
    port: raw.port ?? fromEnv('MCP_PORT') ?? String(DEFAULT_TOOLS_PORT),
    keepAliveMs: raw.keepAliveMs ?? String(DEFAULT_KEEP_ALIVE_MS),
  });
}

/**
 * `wirecheck serve tools`: the reference MCP tool server (2024-11-05) over stdio or SSE
 * until SIGINT/SIGTERM (or, over stdio, until stdin ends). In sse mode the first line on
 * stdout is the stream URL; in stdio mode stdout carries protocol messages only.
 */
export function addServeToolsCommand(
  serve: Command,
  ctx: CliContext,
  run: ServeTools,
  finish: (exitCode: number) => void,
): void {
  serve
    .command('tools')
    .description('run the reference MCP tool server (stdio, or SSE + POST) until interrupted')
    .option('--transport <stdio|sse>', 'transport: stdio or sse (default: $MCP_TRANSPORT, else sse)')
    .option('--host <host>', 'sse: address to listen on (default: $MCP_HOST, else 127.0.0.1)')
    .option('--port <n>', 'sse: port to listen on, 0 picks a free one (default: $MCP_PORT, else 8000)')
    .option('--keep-alive-ms <ms>', 'sse: a keep-alive comment frame this often, 0 for none (default 15000)')
    .action(async (raw: Record<string, unknown>) => {
      const options = serveToolsOptionsOf(raw, ctx.env);
      const shutdown = ctx.onShutdown();
      try {
        await run(options, {
          stdin: ctx.stdin,
          stdout: ctx.stdout,
          log: (line) => ctx.stderr.write(`wirecheck serve tools: ${line}\n`),
          signal: shutdown.signal,
        });
        finish(0);
      } catch (e) {
        if (e instanceof WirecheckError) throw e;
        const reason = e instanceof Error ? e.message : String(e);
        throw new WirecheckError('WC_SERVE_FAILED', `reference tool server: ${reason}`, { cause: e });
      } finally {
        shutdown.dispose();
      }
    });
}
