import { resolve } from 'node:path';
import { z } from 'zod';
import { WirecheckError } from '../harness/errors.js';
import type { RunBashServiceOptions } from '../runner/index.js';
import { ISOLATION_LEVELS, RunnerStartError } from '../runner/index.js';
import { OUTPUT_ALLOWANCE_BYTES, writeOrBehind } from '../transports/output-pace.js';
import type { CliContext } from './context.js';
import { parseOptions } from './parse-options.js';

/** The reference runner as one call (src/runner, runBashService), passed in by main.ts. */
export type RunBashService = (options: RunBashServiceOptions) => Promise<{ lines: number; aborted: boolean }>;

/** The flags of `wirecheck run-bash`, as commander hands them over. */
export interface RunBashFlags {
  workdir?: string;
  timeout?: string;
  isolation: string;
}

/** `--isolation` when it is not given: the strongest confinement that works here. */
export const DEFAULT_ISOLATION = 'auto';

/** Every isolation `--isolation` takes. */
export const ISOLATION_CHOICES = [DEFAULT_ISOLATION, ...ISOLATION_LEVELS] as const;

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
  isolation: z.enum(ISOLATION_CHOICES),
});

/** What `wirecheck run-bash` does once its command line is read into `flags`. */
export async function runBashAction(
  ctx: CliContext,
  serve: RunBashService,
  flags: RunBashFlags,
  finish: (exitCode: number) => void,
): Promise<void> {
  const options = parseOptions(RunBashOptions, {
    workdir: flags.workdir ?? ctx.env.WIRECHECK_WORKDIR,
    timeout: flags.timeout ?? (ctx.env.WIRECHECK_TIMEOUT_S || undefined),
    isolation: flags.isolation,
  });
  const log = (line: string) => ctx.stderr.write(`wirecheck run-bash: ${line}\n`);
  const shutdown = ctx.onShutdown();
  try {
    await serve({
      workdir: resolve(options.workdir),
      timeoutS: options.timeout,
      isolation: options.isolation,
      input: ctx.stdin,
      writeLine: (line) => writeOrBehind(ctx.stdout, line, OUTPUT_ALLOWANCE_BYTES),
      log,
      signal: shutdown.signal,
    });
    finish(0);
  } catch (error) {
    if (error instanceof RunnerStartError) throw new WirecheckError('WC_TARGET_UNAVAILABLE', error.message);
    throw error;
  } finally {
    shutdown.dispose();
  }
}
