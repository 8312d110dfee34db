import type { Command } from 'commander';
import { CommanderError } from 'commander';
import { type CliContext, processContext } from './context.js';
import { addServeGroup, baseProgram } from './program.js';

type AddCommand = (program: Command, ctx: CliContext, finish: (exitCode: number) => void) => Promise<void>;

/**
 * The commands a suite starts once per case (the reference targets), each loading only what
 * it runs. A suite run starts them hundreds of times: loading the whole CLI (every suite, the
 * mocks, fastify, fast-check) for each start cost 2 to 3 times what the command itself needs
 * (docs/performance.md, Per-case cost).
 */
const TARGET_COMMANDS: Readonly<Record<string, AddCommand>> = {
  'messages-client': async (program, ctx, finish) => {
    const [{ addMessagesClientCommand }, { runMessagesClientCommand }] = await Promise.all([
      import('./messages-client.js'),
      import('../clients/messages/command.js'),
    ]);
    addMessagesClientCommand(program, ctx, runMessagesClientCommand, finish);
  },
  agent: async (program, ctx, finish) => {
    const [{ addAgentCommand }, { runAgentCommand }] = await Promise.all([
      import('./agent.js'),
      import('../clients/agent/command.js'),
    ]);
    addAgentCommand(program, ctx, runAgentCommand, finish);
  },
  'tool-client': async (program, ctx, finish) => {
    const [{ addToolClientCommand }, { runToolClientCommand }] = await Promise.all([
      import('./tool-client.js'),
      import('../clients/tools/command.js'),
    ]);
    addToolClientCommand(program, ctx, runToolClientCommand, finish);
  },
  'run-bash': async (program, ctx, finish) => {
    const [{ addRunBashCommand }, { runBashService }] = await Promise.all([
      import('./run-bash.js'),
      import('../runner/serve.js'),
    ]);
    addRunBashCommand(program, ctx, runBashService, finish);
  },
  // The reference tool server: the tool-server suite starts one per session over stdio.
  'serve tools': async (program, ctx, finish) => {
    const [{ addServeToolsCommand }, { runToolServer }] = await Promise.all([
      import('./serve-tools.js'),
      import('../servers/tools/run.js'),
    ]);
    addServeToolsCommand(addServeGroup(program), ctx, runToolServer, finish);
  },
};

/** The command `argv` (node, script, arguments...) runs when it is one a suite starts per case. */
export function targetCommandOf(argv: readonly string[]): string | undefined {
  const name = argv[2] === 'serve' ? `serve ${argv[3]}` : argv[2];
  return name !== undefined && Object.hasOwn(TARGET_COMMANDS, name) ? name : undefined;
}

/**
 * `main` for a per-case target command: the same program, options, output and exit status
 * as the whole CLI gives it (`wirecheck messages-client --help` included), with only that
 * command registered and loaded.
 */
export async function targetMain(
  argv: string[],
  context: Partial<Omit<CliContext, 'deps'>> = {},
): Promise<number> {
  const name = targetCommandOf(argv);
  if (name === undefined) throw new Error(`not a per-case target command: ${argv.slice(2).join(' ')}`);
  const ctx: CliContext = { ...processContext({}), ...context };
  let exitCode = 0;
  try {
    const program = baseProgram(ctx);
    await TARGET_COMMANDS[name]?.(program, ctx, (code) => {
      exitCode = code;
    });
    await program.parseAsync(argv, { from: 'node' });
    return exitCode;
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 2;
    const { asWirecheckError, reportError } = await import('./report-error.js');
    const error = asWirecheckError(e);
    reportError(ctx.stderr, error);
    return error.exitCode;
  }
}
