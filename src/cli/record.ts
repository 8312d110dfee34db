import { resolve } from 'node:path';
import type { Command } from 'commander';
import { z } from 'zod';
import { WirecheckError } from '../harness/errors.js';
import { startRecordingProxy } from '../recording/index.js';
import type { CliContext } from './context.js';
import { integer, parseOptions } from './options.js';

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
            onExchange: (exchange, file) => {
              const { request: rq, response: rs } = exchange;
              const end = rs.end === 'complete' ? '' : `, ${rs.end}`;
              const error = exchange.error ? `, ${exchange.error.message}` : '';
              ctx.stderr.write(
                `recorded ${rq.method} ${rq.path} -> ${rs.status}, ${rs.chunks.length} chunk(s)${end}${error}: ${file}\n`,
              );
            },
            onWriteError: (error, file) =>
              ctx.stderr.write(`wirecheck record: cannot write ${file}: ${error.message}\n`),
          });
        } catch (e) {
          const reason = e instanceof Error ? e.message : String(e);
          throw new WirecheckError('WC_RECORD_FAILED', `recording proxy: ${reason}`, { cause: e });
        }
        ctx.stdout.write(`${proxy.url}\n`);
        ctx.stderr.write(
          `recording ${input.upstream} into ${resolve(input.out)}; interrupt (Ctrl-C) to stop\n`,
        );
        await new Promise<void>((done) => {
          if (shutdown.signal.aborted) done();
          else shutdown.signal.addEventListener('abort', () => done(), { once: true });
        });
        await proxy.close();
        finish(0);
      } finally {
        shutdown.dispose();
      }
    });
}
