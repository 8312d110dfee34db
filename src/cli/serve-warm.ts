import { resolve } from 'node:path';
import type { Command } from 'commander';
import { z } from 'zod';
import { WirecheckError } from '../harness/errors.js';
import { shellQuote } from '../mocks/shell-quote.js';
import { MAX_SOCKET_PATH } from '../mocks/tools/stdio-relay.js';
import { shownUntrusted } from '../reporters/untrusted-text.js';
import { startWarmServer, WARM_RELAY_PATH, type WarmCase, type WarmHandler } from '../warm/index.js';
import { type CliContext, untilShutdown } from './context.js';
import type { RunMessagesClientCommand } from './messages-client.js';
import { parseOptions } from './parse-options.js';
import { readAllStdin } from './read-stdin.js';
import type { RunToolClientCommand } from './tool-client.js';

/**
 * The references `serve warm` can keep loaded, by target name: those whose case is one request
 * and its answer (docs/warm-targets.md, "Where it does not fit").
 */
export type WarmReferences = Readonly<Record<string, WarmHandler>>;

/** A reference client's one call as a warm handler: its stdout, stderr and exit status become the relay's. */
function warmCall(
  call: (c: WarmCase) => Promise<{ stdout: string; stderr: string; exitCode: number }>,
): WarmHandler {
  return async (c) => {
    const result = await call(c);
    c.writeStdout(result.stdout);
    c.writeStderr(result.stderr);
    return result.exitCode;
  };
}

/** The reference messages client as a warm handler: the call `wirecheck messages-client` makes once per process. */
export function warmMessagesClient(run: RunMessagesClientCommand): WarmHandler {
  return warmCall(async ({ env, stdin, signal }) => run({ stdin: await readAllStdin(stdin), env, signal }));
}

/**
 * The reference tool client as a warm handler: the call `wirecheck tool-client` makes once per
 * process with no flag; its stdio server gets the case's environment, as it does cold.
 */
export function warmToolClient(run: RunToolClientCommand): WarmHandler {
  return warmCall(({ env, stdin, signal }) =>
    run({ readStdin: () => readAllStdin(stdin), env, flags: {}, signal }),
  );
}

function serveWarmInput(names: readonly string[]) {
  return z.object({
    target: z.enum(names as [string, ...string[]], `the target to keep warm is one of: ${names.join(', ')}`),
    socket: z
      .string({ error: '--socket is required: the Unix socket to listen on' })
      .min(1, '--socket must not be empty')
      .refine(
        (path) => Buffer.byteLength(resolve(path)) <= MAX_SOCKET_PATH,
        `--socket: a Unix socket path is at most ${MAX_SOCKET_PATH} bytes`,
      ),
  });
}

/**
 * `wirecheck serve warm <target> --socket PATH`: a reference client, loaded once, behind a Unix
 * socket; each case of a suite runs `perl bin/warm-relay.pl PATH` (the first line on stdout),
 * which starts in milliseconds instead of a Node.js process's 100 ms and more
 * (docs/warm-targets.md). Runs until SIGINT/SIGTERM.
 */
export function addServeWarmCommand(
  serve: Command,
  ctx: CliContext,
  references: WarmReferences,
  finish: (exitCode: number) => void,
): void {
  const names = Object.keys(references);
  const input = serveWarmInput(names);
  serve
    .command('warm')
    .description(
      'keep a reference client loaded behind a Unix socket; each case runs the warm relay printed on stdout (docs/warm-targets.md)',
    )
    .argument('<target>', `the reference to keep warm: ${names.join(', ')}`)
    .option(
      '--socket <path>',
      'the Unix socket to listen on (mode 0600; a socket left behind there is replaced, any other file refused)',
    )
    .action(async (target: string, raw: { socket?: string }) => {
      const options = parseOptions(input, { target, socket: raw.socket });
      const socket = resolve(options.socket);
      const shutdown = ctx.onShutdown();
      try {
        const server = await startWarmServer({
          socket,
          handler: references[options.target]!,
          log: (line) => ctx.stderr.write(`wirecheck serve warm: ${shownUntrusted(line, ctx.env)}\n`),
        }).catch((e: unknown) => {
          const reason = e instanceof Error ? e.message : String(e);
          throw new WirecheckError(
            'WC_SERVE_FAILED',
            `warm ${options.target}: cannot listen on ${socket}: ${reason}`,
            { cause: e },
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
