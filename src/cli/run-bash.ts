import { type Command, Option } from 'commander';
import type { CliContext } from './context.js';
import {
  DEFAULT_ISOLATION,
  ISOLATION_CHOICES,
  type RunBashFlags,
  type RunBashService,
  runBashAction,
} from './run-bash-action.js';

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
        .choices(ISOLATION_CHOICES)
        .default(DEFAULT_ISOLATION),
    )
    .action((flags: RunBashFlags) => runBashAction(ctx, serve, flags, finish));
}
