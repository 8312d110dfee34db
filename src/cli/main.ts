import { type Command, CommanderError } from 'commander';
import { runAgentCommand } from '../clients/agent/index.js';
import { runMessagesClientCommand } from '../clients/messages/index.js';
import { runProbeCommand, runToolClientCommand } from '../clients/tools/index.js';
import { runBashService } from '../runner/index.js';
import { runToolServer } from '../servers/tools/run.js';
import type { WarmHandler } from '../warm/index.js';
import { addAgentCommand } from './agent.js';
import { type CliContext, type CliDeps, processContext } from './context.js';
import { addFixturesCommand } from './fixtures.js';
import { addListCommand } from './list-command.js';
import { addMergeReportsCommand } from './merge-reports.js';
import { addMessagesClientCommand } from './messages-client.js';
import { addProbeCommand } from './probe.js';
import { addServeGroup, baseProgram, hintUnquotedCommands, refuseRepeatedOptions } from './program.js';
import { addRecordCommand } from './record.js';
import { asWirecheckError, reportError } from './report-error.js';
import { addRunBashCommand } from './run-bash.js';
import { addAllCommand, addTestCommand } from './run-command.js';
import { addServeMessagesCommand } from './serve-messages.js';
import { startMockForServe } from './serve-messages-mock.js';
import { addServeMockToolsCommand } from './serve-mock-tools.js';
import { addServeToolsCommand } from './serve-tools.js';
import { addServeWarmCommand, warmMessagesClient, warmToolClient } from './serve-warm.js';
import { addToolClientCommand } from './tool-client.js';
import { workflowCommandGuard } from './workflow-commands.js';

/**
 * The implementations behind `serve messages`, `messages-client`, `agent` and `run-bash`. A command whose
 * implementation is not given here is not offered.
 */
export const DEPS: CliDeps = {
  startMockMessagesService: startMockForServe,
  runMessagesClientCommand,
  runAgentCommand,
  runBashService,
  runToolClientCommand,
  probeToolServer: runProbeCommand,
  serveTools: runToolServer,
};

/** The command tree; `finish` receives the exit status of the command that ran. */
export function buildProgram(ctx: CliContext, finish: (exitCode: number) => void): Command {
  const program = baseProgram(ctx);
  addTestCommand(program, ctx, finish);
  addAllCommand(program, ctx, finish);
  addListCommand(program, ctx, finish);
  addMergeReportsCommand(program, ctx, finish);
  const { startMockMessagesService, runMessagesClientCommand } = ctx.deps;
  const serve = addServeGroup(program);
  if (startMockMessagesService !== undefined) {
    addServeMessagesCommand(serve, ctx, startMockMessagesService, finish);
  }
  // The mock tool servers are part of the library itself: always offered.
  addServeMockToolsCommand(serve, ctx, finish);
  const { serveTools } = ctx.deps;
  if (serveTools !== undefined) addServeToolsCommand(serve, ctx, serveTools, finish);
  const warm: Record<string, WarmHandler> = {};
  if (runMessagesClientCommand !== undefined)
    warm['messages-client'] = warmMessagesClient(runMessagesClientCommand);
  if (ctx.deps.runToolClientCommand !== undefined)
    warm['tool-client'] = warmToolClient(ctx.deps.runToolClientCommand);
  if (Object.keys(warm).length > 0) addServeWarmCommand(serve, ctx, warm, finish);
  if (runMessagesClientCommand !== undefined) {
    addMessagesClientCommand(program, ctx, runMessagesClientCommand, finish);
  }
  const { runAgentCommand: agent } = ctx.deps;
  if (agent !== undefined) addAgentCommand(program, ctx, agent, finish);
  const { runBashService: runBash } = ctx.deps;
  if (runBash !== undefined) addRunBashCommand(program, ctx, runBash, finish);
  addRecordCommand(program, ctx, finish);
  addFixturesCommand(program, ctx, finish);
  const { runToolClientCommand: toolClient, probeToolServer } = ctx.deps;
  if (toolClient !== undefined) addToolClientCommand(program, ctx, toolClient, finish);
  if (probeToolServer !== undefined) addProbeCommand(program, ctx, probeToolServer, finish);
  return refuseRepeatedOptions(program);
}

/**
 * Run the CLI on `argv` (as in process.argv: node, script, arguments...) and return the
 * exit status: 0 clean, 1 a check failed, 2 bad usage or a target that could not start.
 */
export async function main(argv: string[], context: Partial<CliContext> = {}): Promise<number> {
  // Under GitHub Actions, what a command quotes of a target must not be read as a workflow command.
  const guard = workflowCommandGuard({ ...processContext(context.deps ?? DEPS), ...context });
  const ctx = guard.ctx;
  let exitCode = 0;
  try {
    const program = buildProgram(ctx, (code) => {
      exitCode = code;
    });
    program.hook('preAction', (_, action) =>
      guard.stopFor(commandPath(action), { json: action.opts().json === true }),
    );
    await hintUnquotedCommands(program, argv.slice(2)).parseAsync(argv, { from: 'node' });
    return exitCode;
  } catch (e) {
    // Commander has already printed its message (help, version or a usage error).
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 2;
    const error = asWirecheckError(e);
    reportError(ctx.stderr, error);
    return error.exitCode;
  } finally {
    guard.resume();
  }
}

/** `fixtures validate`: the names from the program's down to the command's. */
function commandPath(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c?.parent != null; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}
