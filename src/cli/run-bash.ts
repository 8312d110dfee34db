import { resolve } from 'node:path';
import { type Command, Option } from 'commander';
import { z } from 'zod';
import { WirecheckError } from '../harness/errors.js';
import type { RunBashServiceOptions } from '../runner/index.js';
import { ISOLATION_LEVELS, RunnerStartError } from '../runner/index.js';
import type { CliContext } from './context.js';
import { parseOptions } from './parse-options.js';

/** The reference runner as one call (src/runner, runBashService), passed in by main.ts. */
export type RunBashService = (options: RunBashServiceOptions) => Promise<{ lines: number; aborted: boolean }>;

const MAX_TIMEOUT_S = 86_400;

/** `--workdir` or WIRECHECK_WORKDIR, `--timeout` or WIRECHECK_TIMEOUT_S (the target contract in the README, runner). */
const RunBashOptions = z.object({
  workdir: z
    .string({ error: 'the working directory is not set: pass --workdir DIR or set WIRECHECK_WORKDIR' })
    .min(1, '--workdir must not be empty'),
  timeout: z
    .string()
    .regex(/^\s*\d+(\.\d+)?\s*$/, '--timeout (or WIRECHECK_TIMEOUT_S) takes a number of seconds')
    .transform(Number)
    .pipe(
      z
        .number()
        .positive('--timeout must be more than 0 seconds')
        .max(MAX_TIMEOUT_S, `--timeout must be at most ${MAX_TIMEOUT_S} seconds`),
    )
    .optional(),
  isolation: z.enum(['auto', ...ISOLATION_LEVELS]),
});

/**
 * `wirecheck run-bash`: the reference bash runner as a runner target (TARGETS.md): tool_use
 * blocks as JSON Lines on stdin, one tool_result line per input line on stdout, logs and
 * the isolation level in force on stderr; exits when stdin closes.
 */
export function addRunBashCommand(
  program: Command,
  ctx: CliContext,
  serve: RunBashService,
  finish: (exitCode: number) => void,
): void {
  program
    .command('run-bash')
    .description(
      'the reference bash runner: tool_use JSON Lines on stdin, tool_result JSON Lines on stdout (reads WIRECHECK_WORKDIR, WIRECHECK_TIMEOUT_S)',
    )
    .option(
      '--workdir <dir>',
      'the dedicated working directory, created if absent (default: $WIRECHECK_WORKDIR)',
    )
    .option('--timeout <seconds>', 'per-command timeout (default: $WIRECHECK_TIMEOUT_S, else 20)')
    .addOption(
      new Option('--isolation <level>', 'how commands are confined; auto takes the strongest that works here')
        .choices(['auto', ...ISOLATION_LEVELS])
        .default('auto'),
    )
    .action(async (raw: { workdir?: string; timeout?: string; isolation: string }) => {
      const options = parseOptions(RunBashOptions, {
        workdir: raw.workdir ?? ctx.env.WIRECHECK_WORKDIR,
        timeout: raw.timeout ?? (ctx.env.WIRECHECK_TIMEOUT_S || undefined),
        isolation: raw.isolation,
      });
      const log = (line: string) => ctx.stderr.write(`wirecheck run-bash: ${line}\n`);
      const shutdown = ctx.onShutdown();
      try {
        await serve({
          workdir: resolve(options.workdir),
          timeoutS: options.timeout,
          isolation: options.isolation,
          input: ctx.stdin,
          writeLine: (line) => ctx.stdout.write(line),
          log,
          signal: shutdown.signal,
        });
        finish(0);
      } catch (error) {
        if (error instanceof RunnerStartError)
          throw new WirecheckError('WC_TARGET_UNAVAILABLE', error.message);
        throw error;
      } finally {
        shutdown.dispose();
      }
    });
}
