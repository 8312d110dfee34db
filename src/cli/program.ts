import { Command, type Option } from 'commander';
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

/** An option whose value is a shell command: its placeholder says so (`--runner <cmd>`, `--stdio <command>`). */
function takesCommand(option: Option): boolean {
  return /<(cmd|command)>/.test(option.flags);
}

/** Whether `token` is `option` as typed on the command line (`--x`, `-x`, `--x=value`). */
function isOption(option: Option, token: string): boolean {
  return (
    token === option.long ||
    token === option.short ||
    (option.long !== undefined && token.startsWith(`${option.long}=`))
  );
}

/** A word as sh reads it back: bare when it holds nothing sh would split or expand. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * `command` (already a command line, run by sh -c) with `words` (separate arguments, so quoted
 * where sh would split them) appended, as one shell argument: in double quotes where that is
 * safe, as the docs write it.
 */
function shellValue(command: string, words: readonly string[]): string {
  const text = [command, ...words.map(shellWord)].join(' ');
  return /["$`\\!]/.test(text) ? `'${text.replaceAll("'", `'\\''`)}'` : `"${text}"`;
}

/**
 * The hint for a command-taking option given one word and followed by words that are not
 * options of `command` (`--runner python3 my_runner.py`), when one of those words is `culprit`:
 * the unquoted rest of the command, which commander took for an extra argument or an unknown
 * option. `tokens` is the command line after the program's name.
 */
export function unquotedCommandHint(
  command: Command,
  tokens: readonly string[],
  culprit: (word: string) => boolean,
): string | undefined {
  const options = command.options;
  const known = (token: string) =>
    token === '--' || ['--help', '-h'].includes(token) || options.some((o) => isOption(o, token));
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as string;
    if (token === '--') return undefined;
    const option = options.find((o) => isOption(o, token));
    if (option === undefined) continue;
    const inline = option.long !== undefined && token.startsWith(`${option.long}=`);
    if (!takesCommand(option)) {
      if ((option.required || option.optional) && !inline) i++;
      continue;
    }
    const value = inline ? token.slice(`${option.long}=`.length) : tokens[i + 1];
    let end = inline ? i + 1 : i + 2;
    const rest: string[] = [];
    for (; end < tokens.length && !known(tokens[end] as string); end++) rest.push(tokens[end] as string);
    // A value with a space was quoted: the words after it are something else (a typo of an option).
    if (value !== undefined && !/\s/.test(value) && rest.some(culprit)) {
      return `the command and its arguments are one value: ${option.long ?? option.flags} ${shellValue(value, rest)}`;
    }
    i = end - 1;
  }
  return undefined;
}

/**
 * Add the hint of unquotedCommandHint to the "too many arguments" and "unknown option" errors
 * of every command below `command` that takes a shell command as an option value: a command
 * typed without quotes (`--stdio npx -y server`) is the usual cause, and commander's message
 * names only the word it stumbled on. `userArgs` is the command line after the program's name.
 */
export function hintUnquotedCommands(command: Command, userArgs: readonly string[]): Command {
  if (command.options.some(takesCommand)) {
    const error = command.error.bind(command);
    command.error = (message, errorOptions) => {
      let culprit: ((word: string) => boolean) | undefined;
      if (errorOptions?.code === 'commander.unknownOption') {
        const flag = /unknown option '([^']*)'/.exec(message)?.[1];
        culprit = (word) => word === flag;
      } else if (errorOptions?.code === 'commander.excessArguments') {
        const excess = command.args.slice(command.registeredArguments.length);
        culprit = (word) => excess.includes(word);
      }
      const hint = culprit && unquotedCommandHint(command, userArgs, culprit);
      return error(hint === undefined ? message : `${message}\n${hint}`, errorOptions);
    };
  }
  for (const sub of command.commands) hintUnquotedCommands(sub, userArgs);
  return command;
}
