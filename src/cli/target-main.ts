import type { Command } from 'commander';
import { type CliContext, processContext } from './context.js';

type Finish = (exitCode: number) => void;

/** What a command a suite starts once per case does, from the code it loads. */
interface TargetCommand {
  /** Registers the command on the program, for commander to read its command line. */
  add(program: Command, ctx: CliContext, finish: Finish): void | Promise<void>;
  /**
   * Runs it as the suites start the references, with nothing after its name: what its action
   * does with no flag given, without loading commander to find that out (12% of the CPU of a
   * reference client's start; docs/performance.md, "The reference targets without commander").
   */
  runWithoutArguments?(ctx: CliContext, finish: Finish): Promise<void>;
}

/**
 * The commands a suite starts once per case (the reference targets), each loading only what
 * it runs. A suite run starts them hundreds of times: loading the whole CLI (every suite, the
 * mocks, fastify, fast-check) for each start cost 2 to 3 times what the command itself needs
 * (docs/performance.md, Per-case cost).
 */
const TARGET_COMMANDS: Readonly<Record<string, () => Promise<TargetCommand>>> = {
  'messages-client': async () => {
    const [cli, { runMessagesClientCommand: run }] = await Promise.all([
      import('./messages-client.js'),
      import('../clients/messages/command.js'),
    ]);
    return {
      add: (program, ctx, finish) => cli.addMessagesClientCommand(program, ctx, run, finish),
      runWithoutArguments: (ctx, finish) => cli.messagesClientAction(ctx, run, finish),
    };
  },
  agent: async () => {
    const [cli, { runAgentCommand: run }] = await Promise.all([
      import('./agent.js'),
      import('../clients/agent/command.js'),
    ]);
    return {
      add: (program, ctx, finish) => cli.addAgentCommand(program, ctx, run, finish),
      runWithoutArguments: (ctx, finish) => cli.agentAction(ctx, run, {}, finish),
    };
  },
  'tool-client': async () => {
    const [cli, { runToolClientCommand: run }] = await Promise.all([
      import('./tool-client.js'),
      import('../clients/tools/command.js'),
    ]);
    return {
      add: (program, ctx, finish) => cli.addToolClientCommand(program, ctx, run, finish),
      runWithoutArguments: (ctx, finish) => cli.toolClientAction(ctx, run, {}, finish),
    };
  },
  'run-bash': async () => {
    // The action comes from run-bash-action.js: run-bash.js, which registers it, loads commander.
    const [action, { runBashService: serve }] = await Promise.all([
      import('./run-bash-action.js'),
      import('../runner/serve.js'),
    ]);
    return {
      add: async (program, ctx, finish) =>
        (await import('./run-bash.js')).addRunBashCommand(program, ctx, serve, finish),
      runWithoutArguments: (ctx, finish) =>
        action.runBashAction(ctx, serve, { isolation: action.DEFAULT_ISOLATION }, finish),
    };
  },
  // The reference tool server: the tool-server suite starts one per session over stdio, always
  // with flags (`--transport stdio`), so commander reads them.
  'serve tools': async () => {
    const [{ addServeGroup }, { addServeToolsCommand }, { runToolServer }] = await Promise.all([
      import('./program.js'),
      import('./serve-tools.js'),
      import('../servers/tools/run.js'),
    ]);
    return {
      add: (program, ctx, finish) => addServeToolsCommand(addServeGroup(program), ctx, runToolServer, finish),
    };
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
 * command registered and loaded, and commander only when there is a command line to read.
 */
export async function targetMain(
  argv: string[],
  context: Partial<Omit<CliContext, 'deps'>> = {},
): Promise<number> {
  const name = targetCommandOf(argv);
  const load = name === undefined ? undefined : TARGET_COMMANDS[name];
  if (load === undefined) throw new Error(`not a per-case target command: ${argv.slice(2).join(' ')}`);
  const ctx: CliContext = { ...processContext({}), ...context };
  let exitCode = 0;
  const finish = (code: number) => {
    exitCode = code;
  };
  let withoutArguments: TargetCommand['runWithoutArguments'];
  try {
    const command = await load();
    withoutArguments = argv.length === 3 ? command.runWithoutArguments : undefined;
    if (withoutArguments !== undefined) {
      await withoutArguments(ctx, finish);
      return exitCode;
    }
    const { baseProgram, hintUnquotedCommands, refuseRepeatedOptions } = await import('./program.js');
    const program = baseProgram(ctx);
    await command.add(program, ctx, finish);
    refuseRepeatedOptions(program);
    hintUnquotedCommands(program, argv.slice(2));
    await program.parseAsync(argv, { from: 'node' });
    return exitCode;
  } catch (e) {
    if (withoutArguments === undefined) {
      const { CommanderError } = await import('commander');
      if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 2;
    }
    const { asWirecheckError, reportError } = await import('./report-error.js');
    const error = asWirecheckError(e);
    reportError(ctx.stderr, error);
    return error.exitCode;
  }
}
