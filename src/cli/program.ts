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

/**
 * Refuse a value option given twice in `command` and below: only the last value would count,
 * and the first (a typo in one `--only`, the wrong `--seed`) would be dropped without a word.
 * An option with a parser of its own collects its values (`--header`, `--only`) and may repeat;
 * one with choices (commander gives it a parser too) takes one value.
 */
export function refuseRepeatedOptions(command: Command): Command {
  for (const option of command.options) {
    const collects = option.parseArg !== undefined && option.argChoices === undefined;
    if (collects || option.variadic || !(option.required || option.optional)) continue;
    let given = 0;
    command.on(`option:${option.name()}`, () => {
      given += 1;
      if (given > 1) {
        command.error(
          `${option.long ?? option.flags} is given twice: give it once (only one value can count)`,
          {
            code: 'wirecheck.repeatedOption',
            exitCode: 2,
          },
        );
      }
    });
  }
  for (const sub of command.commands) refuseRepeatedOptions(sub);
  return command;
}

/** `wirecheck serve`, the group of the commands that run a server until interrupted. */
export function addServeGroup(program: Command): Command {
  return program.command('serve').description('run a mock server until interrupted');
}
