import { resolve } from 'node:path';
import type { Command } from 'commander';
import { z } from 'zod';
import { WirecheckError } from '../harness/errors.js';
import { shellQuote } from '../mocks/shell-quote.js';
import { startWarmServer, WARM_RELAY_PATH, type WarmHandler } from '../warm/index.js';
import { type CliContext, untilShutdown } from './context.js';
import type { RunMessagesClientCommand } from './messages-client.js';
import { parseOptions } from './parse-options.js';
import { readAllStdin } from './read-stdin.js';

/** The references `serve warm` keeps loaded: those whose case is one request and its answer, with no process of their own. */
export const WARM_REFERENCES = ['messages-client'] as const;

const ServeWarmInput = z.object({
  target: z.enum(WARM_REFERENCES, `the target to keep warm is one of: ${WARM_REFERENCES.join(', ')}`),
  socket: z
    .string({ error: '--socket is required: the Unix socket to listen on' })
    .min(1, '--socket must not be empty')
    // sun_path holds 108 bytes with the NUL.
    .refine(
      (path) => Buffer.byteLength(resolve(path)) <= 107,
      '--socket: a Unix socket path is at most 107 bytes',
    ),
});

/** The reference messages client as a warm handler: the same call `wirecheck messages-client` makes once per process. */
export function warmMessagesClient(run: RunMessagesClientCommand): WarmHandler {
  return async ({ env, stdin, writeStdout, writeStderr, signal }) => {
    const result = await run({ stdin: await readAllStdin(stdin), env, signal });
    writeStdout(result.stdout);
    writeStderr(result.stderr);
    return result.exitCode;
  };
}

/**
 * `wirecheck serve warm messages-client --socket PATH`: the reference messages client, loaded
 * once, behind a Unix socket; each case of a suite runs `perl bin/warm-relay.pl PATH` (the
 * first line on stdout), which starts in milliseconds instead of a Node.js process's 100 ms and
 * more (docs/warm-targets.md). Runs until SIGINT/SIGTERM.
 */
export function addServeWarmCommand(
  serve: Command,
  ctx: CliContext,
  runMessagesClient: RunMessagesClientCommand,
  finish: (exitCode: number) => void,
): void {
  serve
    .command('warm')
    .description(
      'keep a reference target loaded behind a Unix socket; each case runs the warm relay printed on stdout (docs/warm-targets.md)',
    )
    .argument('<target>', `the reference to keep warm: ${WARM_REFERENCES.join(', ')}`)
    .option('--socket <path>', 'the Unix socket to listen on (replaced if it exists; mode 0600)')
    .action(async (target: string, raw: { socket?: string }) => {
      const options = parseOptions(ServeWarmInput, { target, socket: raw.socket });
      const socket = resolve(options.socket);
      const shutdown = ctx.onShutdown();
      try {
        const server = await startWarmServer({
          socket,
          handler: warmMessagesClient(runMessagesClient),
          log: (line) => ctx.stderr.write(`wirecheck serve warm: ${line}\n`),
        }).catch((e: unknown) => {
          const reason = e instanceof Error ? e.message : String(e);
          throw new WirecheckError(
            'WC_SERVE_FAILED',
            `warm ${options.target}: cannot listen on ${socket}: ${reason}`,
            {
              cause: e,
            },
          );
        });
        ctx.stdout.write(`perl ${shellQuote(WARM_RELAY_PATH)} ${shellQuote(socket)}\n`);
        ctx.stderr.write(
          `wirecheck serve warm: the reference ${options.target} listens on ${socket}; give the line above as its target command\n`,
        );
        await untilShutdown(shutdown);
        await server.close();
        finish(0);
      } finally {
        shutdown.dispose();
      }
    });
}
