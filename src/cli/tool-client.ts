import type { Command } from 'commander';
import type { CliContext } from './context.js';
import { readAllStdin } from './read-stdin.js';

/** The flags of `wirecheck tool-client`, as commander hands them over. */
export interface ToolClientFlags {
  stdio?: string;
  sse?: string;
  http?: string;
  tool?: string;
  arguments?: string;
  list?: boolean;
  timeoutMs?: string;
  protocol?: string;
  header?: string[];
}

/** The reference tool client as one call (src/clients/tools runToolClientCommand), passed in by main.ts. */
export type RunToolClientCommand = (input: {
  readStdin: () => Promise<string>;
  env: NodeJS.ProcessEnv;
  flags: ToolClientFlags;
  signal: AbortSignal;
}) => Promise<{ stdout: string; stderr: string; exitCode: number }>;

/** What `wirecheck tool-client` does once its command line is read into `flags`. */
export async function toolClientAction(
  ctx: CliContext,
  run: RunToolClientCommand,
  flags: ToolClientFlags,
  finish: (exitCode: number) => void,
): Promise<void> {
  const shutdown = ctx.onShutdown();
  try {
    const result = await run({
      readStdin: () => readAllStdin(ctx.stdin),
      env: ctx.env,
      flags,
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
 * `wirecheck tool-client`: the reference tool client as a tool-client target command
 * (TARGETS.md): `{"tool", "arguments"}` on stdin, the tools/call result JSON on stdout.
 */
export function addToolClientCommand(
  program: Command,
  ctx: CliContext,
  run: RunToolClientCommand,
  finish: (exitCode: number) => void,
): void {
  program
    .command('tool-client')
    .description(
      'the reference tool client as a target command: {"tool","arguments"} on stdin, the tools/call result JSON on stdout (reads WIRECHECK_TRANSPORT, WIRECHECK_SERVER_CMD, WIRECHECK_SERVER_URL)',
    )
    .option('--stdio <cmd>', 'spawn this tool server command and speak stdio (overrides the environment)')
    .option('--sse <url>', "connect to this SSE tool server's stream URL (overrides the environment)")
    .option(
      '--http <url>',
      "connect to this Streamable HTTP tool server's endpoint URL (overrides the environment)",
    )
    .option('--tool <name>', 'call this tool instead of reading stdin')
    .option('--arguments <json>', 'arguments of --tool, a JSON object (default none)')
    .option('--list', 'print the tools/list result instead of calling a tool')
    .option('--timeout-ms <n>', 'per-request timeout in milliseconds (default 30000)')
    .option(
      '--header <header>',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: ${VAR} is what the user types, expanded from the environment
      "with --sse or --http: 'Name: value' sent with every request, e.g. 'Authorization: Bearer ${MCP_TOKEN}' (${VAR} is read from the environment); repeatable",
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    )
    .option(
      '--protocol <revision>',
      'MCP revision to ask for in initialize: 2024-11-05 (default over stdio and SSE), 2025-03-26 (default over http), 2025-06-18 or 2025-11-25; any of them answered is accepted',
    )
    .action((flags: ToolClientFlags) => toolClientAction(ctx, run, flags, finish));
}
