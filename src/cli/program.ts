import { Command } from 'commander';
import { VERSION } from '../version.js';
import type { CliContext } from './context.js';

/** The `wirecheck` program with no command yet: its description, version and output. */
export function baseProgram(ctx: CliContext): Command {
  return new Command('wirecheck')
    .description('Conformance test harness and mock servers for LLM tool-use systems')
    .version(VERSION, '-V, --version', 'print the version')
    .exitOverride()
    .showHelpAfterError('(add --help for usage)')
    .configureOutput({
      writeOut: (s) => ctx.stdout.write(s),
      writeErr: (s) => ctx.stderr.write(s),
      outputError: (s, write) => write(`wirecheck: WC_USAGE: ${s.replace(/^error: /, '')}`),
    });
}

/** `wirecheck serve`, the group of the commands that run a server until interrupted. */
export function addServeGroup(program: Command): Command {
  return program.command('serve').description('run a mock server until interrupted');
}
