import { resolve } from 'node:path';
import type { Command } from 'commander';
import { z } from 'zod';
import type { ToolSession } from '../fixtures/index.js';
import { WirecheckError } from '../harness/errors.js';
import { startRecordingProxy } from '../recording/index.js';
import {
  recordStdioSession,
  redactUrl,
  secretsOfEnv,
  startSseRecordingProxy,
  startStreamableHttpRecordingProxy,
} from '../recording/tools/index.js';
import { shownUntrusted } from '../reporters/untrusted-text.js';
import { writeOrBehind } from '../transports/output-pace.js';
import { type CliContext, untilShutdown } from './context.js';
import { integer, parseOptions } from './options.js';
import { recordedSessionLine } from './recorded-session-line.js';

const RecordInput = z.object({
  upstream: z
    .string({ error: '--upstream URL is required (e.g. https://api.anthropic.com)' })
    .refine(
      (s) => /^https?:\/\/[^/]/.test(s) && URL.canParse(s),
      '--upstream takes an http:// or https:// URL',
    ),
  port: integer('--port', 0, 65535),
  host: z.string().min(1, '--host must not be empty'),
  out: z.string({ error: '--out DIR is required' }).min(1, '--out must not be empty'),
});

const RecordToolsInput = z
  .object({
    stdio: z.string().min(1, '--stdio takes the server command').optional(),
    sse: z
      .string()
      .refine((s) => /^https?:\/\/[^/]/.test(s) && URL.canParse(s), '--sse takes an http:// or https:// URL')
      .optional(),
    http: z
      .string()
      .refine((s) => /^https?:\/\/[^/]/.test(s) && URL.canParse(s), '--http takes an http:// or https:// URL')
      .optional(),
    port: integer('--port', 0, 65535),
    host: z.string().min(1, '--host must not be empty'),
    out: z.string({ error: '--out DIR is required' }).min(1, '--out must not be empty'),
  })
  .refine((o) => [o.stdio, o.sse, o.http].filter((v) => v !== undefined).length === 1, {
    message: 'give exactly one of --stdio CMD, --sse URL and --http URL',
  });

/**
 * `wirecheck record messages`: a recording proxy in front of a messages service, until
 * SIGINT/SIGTERM. The URL is the first line on stdout; each recorded exchange is one line
 * on stderr.
 */
export function addRecordCommand(
  program: Command,
  ctx: CliContext,
  finish: (exitCode: number) => void,
): void {
  const record = program.command('record').description('record exchanges with a real service as fixtures');
  record
    .command('messages')
    .description(
      'a recording proxy: forwards to the upstream messages service, writes one fixture per exchange',
    )
    .option('--upstream <url>', 'base URL of the service to record (no /v1)')
    .option('--port <n>', 'port to listen on; 0 picks a free one', '0')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--out <dir>', 'directory for the fixture files (created if missing)')
    .action(async (raw: Record<string, unknown>) => {
      const input = parseOptions(RecordInput, raw);
      const shutdown = ctx.onShutdown();
      try {
        let proxy: Awaited<ReturnType<typeof startRecordingProxy>>;
        try {
          proxy = await startRecordingProxy({
            upstream: input.upstream,
            host: input.host,
            port: input.port,
            outDir: resolve(input.out),
            // Keys of the environment are scrubbed too, wherever the upstream echoes them.
            secrets: secretsOfEnv(ctx.env),
            onRecorded: (rec, file) => {
              const end = rec.end === 'complete' ? '' : `, ${rec.end}`;
              const error = rec.error === undefined ? '' : `, ${rec.error}`;
              const cut = rec.truncated ? ', recording stopped mid-stream (marked truncated)' : '';
              // The method, path and error are a client's and an upstream's words: shown, not obeyed.
              ctx.stderr.write(
                `${shownUntrusted(`recorded ${rec.method} ${rec.path} -> ${rec.status}, ${rec.chunks} chunk(s)${end}${error}${cut}: ${file ?? '(no response: not written)'}`, ctx.env)}\n`,
              );
            },
            onWriteError: (error, file) =>
              ctx.stderr.write(
                `wirecheck record: ${shownUntrusted(`cannot write ${file}: ${error.message}`, ctx.env)}\n`,
              ),
          });
        } catch (e) {
          const reason = e instanceof Error ? e.message : String(e);
          throw new WirecheckError('WC_RECORD_FAILED', `recording proxy: ${reason}`, { cause: e });
        }
        ctx.stdout.write(`${proxy.url}\n`);
        ctx.stderr.write(
          `recording ${redactUrl(input.upstream)} into ${resolve(input.out)}; interrupt (Ctrl-C) to stop\n`,
        );
        await untilShutdown(shutdown);
        await proxy.close();
        finish(0);
      } finally {
        shutdown.dispose();
      }
    });
  addRecordToolsCommand(record, ctx, finish);
}

/**
 * `wirecheck record tools`: with `--stdio CMD` it is a stdio tool server itself (a client
 * spawns it as its server command): it runs CMD and relays both directions unchanged, stdout
 * carrying only what the server wrote, and writes one fixture when the server exits; it
 * exits with the server's code. With `--sse URL` it is a recording proxy printing its stream
 * URL, with `--http URL` one in front of a Streamable HTTP endpoint printing its endpoint
 * URL: one fixture per session, until SIGINT/SIGTERM.
 */
function addRecordToolsCommand(record: Command, ctx: CliContext, finish: (exitCode: number) => void): void {
  record
    .command('tools')
    .description(
      'record tool-server sessions: a stdio relay around a server command, or an SSE or Streamable HTTP proxy',
    )
    .option('--stdio <command>', 'the stdio server command to run and record (run by sh -c)')
    .option('--sse <url>', "the SSE server's stream URL to proxy and record, e.g. http://127.0.0.1:8000/sse")
    .option(
      '--http <url>',
      "the Streamable HTTP server's endpoint to proxy and record, e.g. http://127.0.0.1:8000/mcp",
    )
    .option('--port <n>', 'sse, http: port to listen on; 0 picks a free one', '0')
    .option('--host <host>', 'sse, http: address to listen on', '127.0.0.1')
    .option('--out <dir>', 'directory for the fixture files (created if missing)')
    .action(async (raw: Record<string, unknown>) => {
      const input = parseOptions(RecordToolsInput, raw);
      const outDir = resolve(input.out);
      const onSession = (session: ToolSession, file: string | undefined, why?: string) => {
        ctx.stderr.write(`${shownUntrusted(recordedSessionLine(session, file, why), ctx.env)}\n`);
      };
      const onWriteError = (error: Error, file: string) =>
        ctx.stderr.write(
          `wirecheck record: ${shownUntrusted(`cannot write ${file}: ${error.message}`, ctx.env)}\n`,
        );
      const shutdown = ctx.onShutdown();
      try {
        if (input.stdio !== undefined) {
          const { exit } = await recordStdioSession({
            command: input.stdio,
            input: ctx.stdin as AsyncIterable<Uint8Array | string>,
            // Byte for byte, invalid UTF-8 included: a client sees what the server wrote.
            write: (bytes) => writeOrBehind(ctx.stdout, bytes),
            writeError: (bytes) => writeOrBehind(ctx.stderr, bytes),
            env: ctx.env,
            signal: shutdown.signal,
            outDir,
            onSession,
            onWriteError,
          });
          finish(shutdown.signal.aborted ? 0 : (exit.code ?? 1));
          return;
        }
        let proxy: Awaited<ReturnType<typeof startSseRecordingProxy>>;
        const common = {
          host: input.host,
          port: input.port,
          outDir,
          onSession,
          onWriteError,
          // Keys of the environment are scrubbed too, wherever a client or the server sends them.
          secrets: secretsOfEnv(ctx.env),
        };
        try {
          proxy =
            input.http !== undefined
              ? await startStreamableHttpRecordingProxy({
                  ...common,
                  upstream: input.http,
                  onUnmatched: (what) =>
                    ctx.stderr.write(
                      `wirecheck record: ${shownUntrusted(what, ctx.env)} names no recorded session (relayed)\n`,
                    ),
                })
              : await startSseRecordingProxy({
                  ...common,
                  upstream: input.sse!,
                  onUnmatchedPost: (url) =>
                    ctx.stderr.write(
                      `wirecheck record: POST ${shownUntrusted(url, ctx.env)} names no recorded session (relayed)\n`,
                    ),
                });
        } catch (e) {
          const reason = e instanceof Error ? e.message : String(e);
          throw new WirecheckError('WC_RECORD_FAILED', `tool-server recording proxy: ${reason}`, {
            cause: e,
          });
        }
        ctx.stdout.write(`${proxy.url}\n`);
        ctx.stderr.write(
          `recording ${redactUrl(input.http ?? input.sse!)} into ${outDir}; interrupt (Ctrl-C) to stop\n`,
        );
        await untilShutdown(shutdown);
        await proxy.close();
        finish(0);
      } finally {
        shutdown.dispose();
      }
    });
}
