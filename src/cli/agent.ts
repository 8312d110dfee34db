import type { Command } from 'commander';
import { DEFAULT_MODEL } from '../protocol/messages/default-model.js';
import type { CliContext, OutputStream } from './context.js';
import { readAllStdin } from './read-stdin.js';

/** The flags of `wirecheck agent`, as commander hands them over. */
export interface AgentCommandFlags {
  maxTurns?: string;
  workdir?: string;
  transcript?: string;
  model?: string;
  maxTokens?: string;
  stream?: boolean;
  commandTimeout?: string;
  isolation?: string;
}

/**
 * The reference agent as one call (src/clients/agent runAgentCommand with the reference
 * runner bound), passed in by main.ts; resolves to the exit status.
 */
export type RunAgentCommand = (input: {
  stdin: string;
  env: NodeJS.ProcessEnv;
  flags: AgentCommandFlags;
  stdout: OutputStream;
  stderr: OutputStream;
  signal: AbortSignal;
}) => Promise<number>;

/** What `wirecheck agent` does once its command line is read into `flags`. */
export async function agentAction(
  ctx: CliContext,
  run: RunAgentCommand,
  flags: AgentCommandFlags,
  finish: (exitCode: number) => void,
): Promise<void> {
  const shutdown = ctx.onShutdown();
  try {
    finish(
      await run({
        stdin: await readAllStdin(ctx.stdin),
        env: ctx.env,
        flags,
        stdout: ctx.stdout,
        stderr: ctx.stderr,
        signal: shutdown.signal,
      }),
    );
  } finally {
    shutdown.dispose();
  }
}

/**
 * `wirecheck agent`: the reference tool-use loop as an agent target command (TARGETS.md):
 * the prompt on stdin; exit 0 when the loop ends, 3 when the circuit breaker trips.
 */
export function addAgentCommand(
  program: Command,
  ctx: CliContext,
  run: RunAgentCommand,
  finish: (exitCode: number) => void,
): void {
  program
    .command('agent')
    .description(
      'the reference tool-use loop as a target command: prompt on stdin, bash tool calls run in the working directory; exit 0 done or turn cap, 3 circuit breaker (reads WIRECHECK_BASE_URL, WIRECHECK_API_KEY)',
    )
    .option('--max-turns <n>', 'requests sent per prompt at most (env WIRECHECK_MAX_TURNS, default 10)')
    .option(
      '--workdir <dir>',
      'working directory of the bash runner, created if absent (env WIRECHECK_WORKDIR, default a new temporary folder)',
    )
    .option('--transcript <file>', 'write the loop as JSON Lines to this file (env WIRECHECK_TRANSCRIPT)')
    .option('--model <name>', `model named in every request (env WIRECHECK_MODEL, default ${DEFAULT_MODEL})`)
    .option('--max-tokens <n>', 'max_tokens of every request (env WIRECHECK_MAX_TOKENS, default 4096)')
    .option('--stream', 'ask for streamed replies (default buffered)')
    .option('--command-timeout <s>', 'per-command timeout in seconds (env WIRECHECK_TIMEOUT_S, default 20)')
    .option(
      '--isolation <level>',
      'how model-chosen commands are confined: auto (bwrap or util-linux; refuses to run without one), bwrap, util-linux, or none (env WIRECHECK_ISOLATION, default auto)',
    )
    .action((flags: AgentCommandFlags) => agentAction(ctx, run, flags, finish));
}
