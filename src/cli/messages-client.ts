import type { Command } from 'commander';
import type { CliContext } from './context.js';
import { readAllStdin } from './read-stdin.js';

/** The reference messages client as one call (src/clients/messages), passed in by main.ts. */
export type RunMessagesClientCommand = (input: {
  stdin: string;
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
}) => Promise<{ stdout: string; stderr: string; exitCode: number }>;

/**
 * What `wirecheck messages-client` does once its command line is read (it takes no flag):
 * the request body on stdin, the final message or the error on stdout.
 */
export async function messagesClientAction(
  ctx: CliContext,
  run: RunMessagesClientCommand,
  finish: (exitCode: number) => void,
): Promise<void> {
  const shutdown = ctx.onShutdown();
  try {
    const result = await run({
      stdin: await readAllStdin(ctx.stdin),
      env: ctx.env,
      signal: shutdown.signal,
    });
    ctx.stdout.write(result.stdout);
    ctx.stderr.write(result.stderr);
    finish(result.exitCode);
  } finally {
    shutdown.dispose();
  }
}

/**
 * `wirecheck messages-client`: the reference client as a messages-client target command
 * (TARGETS.md): the request body on stdin, the final message or the error on stdout.
 */
export function addMessagesClientCommand(
  program: Command,
  ctx: CliContext,
  run: RunMessagesClientCommand,
  finish: (exitCode: number) => void,
): void {
  program
    .command('messages-client')
    .description(
      'the reference messages client as a target command: request JSON on stdin, final message JSON on stdout (reads WIRECHECK_BASE_URL, WIRECHECK_API_KEY)',
    )
    .action(() => messagesClientAction(ctx, run, finish));
}
