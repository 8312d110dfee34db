import type { Command } from 'commander';
import { z } from 'zod';
import { WirecheckError } from '../harness/errors.js';
import { shownUntrusted } from '../reporters/untrusted-text.js';
import type { RequiredHeaders } from '../servers/http/required-headers.js';
import type { CliContext, OutputStream } from './context.js';
import { integer, parseOptions } from './parse-options.js';
import { addRequireHeaderOption, requiredHeadersOf } from './require-header-option.js';

/** What `wirecheck serve tools` asks of the reference tool server (src/servers/tools). */
export interface ServeToolsOptions {
  readonly transport: 'stdio' | 'sse' | 'http';
  readonly host: string;
  /** http: the endpoint's path. */
  readonly path: string;
  readonly port: number;
  readonly keepAliveMs: number;
  /** `--require-header`: sse, http answer 401 to a request without these. */
  readonly requireHeaders?: RequiredHeaders;
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
export const DEFAULT_TOOLS_PATH = '/mcp';

const ServeToolsInput = z.object({
  transport: z.enum(['stdio', 'sse', 'http'], '--transport (or MCP_TRANSPORT) is stdio, sse or http'),
  host: z.string().min(1, '--host (or MCP_HOST) must not be empty'),
  path: z.string().regex(/^\/[\x21-\x7e]*$/, '--path is an absolute URL path, e.g. /mcp'),
  port: integer('--port (or MCP_PORT)', 0, 65535),
  keepAliveMs: integer('--keep-alive-ms', 0, 3_600_000),
});

/** A flag beats the environment, which beats the default; an empty variable counts as unset. */
export function serveToolsOptionsOf(raw: Record<string, unknown>, env: NodeJS.ProcessEnv): ServeToolsOptions {
  const fromEnv = (name: string): string | undefined => (env[name] === '' ? undefined : env[name]);
  const options = parseOptions(ServeToolsInput, {
    transport: raw.transport ?? fromEnv('MCP_TRANSPORT') ?? 'sse',
    host: raw.host ?? fromEnv('MCP_HOST') ?? DEFAULT_TOOLS_HOST,
    path: raw.path ?? DEFAULT_TOOLS_PATH,
    port: raw.port ?? fromEnv('MCP_PORT') ?? String(DEFAULT_TOOLS_PORT),
    keepAliveMs: raw.keepAliveMs ?? String(DEFAULT_KEEP_ALIVE_MS),
  });
  const requireHeaders = requiredHeadersOf(raw.requireHeader, options.transport, env);
  return requireHeaders === undefined ? options : { ...options, requireHeaders };
}

/**
 * `wirecheck serve tools`: the reference MCP tool server over stdio, SSE (2024-11-05) or
 * Streamable HTTP (2025-03-26 and later) until SIGINT/SIGTERM (or, over stdio, until stdin
 * ends). In sse and http modes the first line on stdout is the URL (stream, endpoint); in
 * stdio mode stdout carries protocol messages only.
 */
export function addServeToolsCommand(
  serve: Command,
  ctx: CliContext,
  run: ServeTools,
  finish: (exitCode: number) => void,
): void {
  const command = serve
    .command('tools')
    .description(
      'run the reference MCP tool server (stdio, SSE + POST, or Streamable HTTP) until interrupted',
    )
    .option(
      '--transport <stdio|sse|http>',
      'transport: stdio, sse or http (Streamable HTTP) (default: $MCP_TRANSPORT, else sse)',
    )
    .option('--host <host>', 'sse, http: address to listen on (default: $MCP_HOST, else 127.0.0.1)')
    .option('--port <n>', 'sse, http: port to listen on, 0 picks a free one (default: $MCP_PORT, else 8000)')
    .option('--path <path>', 'http: the endpoint path (default /mcp)')
    .option(
      '--keep-alive-ms <ms>',
      'sse, http: a keep-alive comment frame on event streams this often, 0 for none (default 15000)',
    );
  addRequireHeaderOption(command).action(async (raw: Record<string, unknown>) => {
    const options = serveToolsOptionsOf(raw, ctx.env);
    const shutdown = ctx.onShutdown();
    try {
      await run(options, {
        stdin: ctx.stdin,
        stdout: ctx.stdout,
        log: (line) => ctx.stderr.write(`wirecheck serve tools: ${shownUntrusted(line, ctx.env)}\n`),
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
