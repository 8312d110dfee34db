import { readdir, readFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import type { Command } from 'commander';
import { describe, expect, test } from 'vitest';
import type { CliContext } from '../../src/cli/context.js';
import { buildProgram, DEPS } from '../../src/cli/main.js';
import { FaultPlan } from '../../src/mocks/messages/faults.js';
import { SUITES } from '../../src/suites/registry.js';

function allCommands(command: Command, path: string[] = []): { path: string[]; command: Command }[] {
  return command.commands.flatMap((sub) => {
    const subPath = [...path, sub.name()];
    return [{ path: subPath, command: sub }, ...allCommands(sub, subPath)];
  });
}

function program(): Command {
  const ignore = () => {};
  const ctx: CliContext = {
    stdout: { write: ignore },
    stderr: { write: ignore },
    stdin: Readable.from([]),
    env: {},
    // The real implementations: building the program registers every command without running any.
    deps: DEPS,
    onShutdown: () => ({ signal: new AbortController().signal, dispose: ignore }),
  };
  return buildProgram(ctx, ignore);
}

/** The long options of a command, `--help` included. */
function longOptions(command: Command): Set<string> {
  return new Set(['--help', ...command.options.flatMap((o) => (o.long === undefined ? [] : [o.long]))]);
}

/** The command a usage line names (`wirecheck serve tools [...]` -> serve tools), undefined for the root. */
function commandOf(root: Command, words: string[]): { command: Command; rest: string[] } {
  let command = root;
  let i = 0;
  for (; i < words.length; i++) {
    const sub = command.commands.find((c) => c.name() === words[i]);
    if (sub === undefined) break;
    command = sub;
  }
  return { command, rest: words.slice(i) };
}

describe('docs/cli.md', () => {
  test('its usage summary names only commands and options that exist', async () => {
    const doc = await readFile(new URL('../../docs/cli.md', import.meta.url), 'utf8');
    const usage = doc.slice(doc.indexOf('```\n') + 4, doc.indexOf('\n```', doc.indexOf('```\n') + 4));
    const root = program();
    const wrong: string[] = [];
    const lines = usage.split('\n').filter((l) => l.startsWith('wirecheck '));
    expect(lines.length).toBeGreaterThan(15);
    for (const line of lines) {
      const { command, rest } = commandOf(root, line.slice('wirecheck '.length).split(' '));
      const known = command === root ? new Set(['--version', '--help']) : longOptions(command);
      for (const flag of rest.join(' ').match(/--[a-z][a-z-]*/g) ?? []) {
        // `[--fault-* ...]` stands for the --fault-<name> flags.
        if (flag === '--fault-') {
          if (![...known].some((k) => k.startsWith('--fault-'))) wrong.push(`${line}: --fault-*`);
          continue;
        }
        if (!known.has(flag)) wrong.push(`${command.name()}: ${flag}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  test("its usage summary gives each command's every option (test: its run options; target options are summed up)", async () => {
    const doc = await readFile(new URL('../../docs/cli.md', import.meta.url), 'utf8');
    const usage = doc.slice(doc.indexOf('```\n') + 4, doc.indexOf('\n```', doc.indexOf('```\n') + 4));
    const root = program();
    const targetOptions = new Set(
      SUITES.flatMap((e) => e.targetOptions.map((o) => o.flags.split(/[ ,]/)[0] as string)),
    );
    const missing: string[] = [];
    for (const { path, command } of allCommands(root).filter(
      ({ command }) => command.commands.length === 0,
    )) {
      const line = usage
        .split('\n')
        .find((l) => l.startsWith(`wirecheck ${path.join(' ')} `) || l === `wirecheck ${path.join(' ')}`);
      if (line === undefined) {
        missing.push(`no usage line for ${path.join(' ')}`);
        continue;
      }
      for (const flag of longOptions(command)) {
        if (flag === '--help' || (path[0] === 'test' && targetOptions.has(flag))) continue;
        const shown = flag.startsWith('--fault-')
          ? line.includes('--fault-*')
          : new RegExp(`${flag}(?![a-z-])`).test(line);
        if (!shown) missing.push(`${path.join(' ')} ${flag}`);
      }
    }
    expect(missing).toEqual([]);
  });

  test('README names only options some command has', async () => {
    const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
    const known = new Set(allCommands(program()).flatMap(({ command }) => [...longOptions(command)]));
    const named = new Set(readme.match(/(?<![\w-])--[a-z][a-z-]*[a-z]/g) ?? []);
    expect(named.size).toBeGreaterThan(10);
    expect([...named].filter((flag) => !known.has(flag) && flag !== '--version')).toEqual([]);
  });

  test('documents every command and every option of the CLI', async () => {
    const doc = await readFile(new URL('../../docs/cli.md', import.meta.url), 'utf8');
    const root = program();
    const missing: string[] = [];
    const commands = allCommands(root).filter(({ command }) => command.commands.length === 0);
    expect(commands.map((c) => c.path.join(' '))).toEqual(
      expect.arrayContaining([
        'test',
        'all',
        'list',
        'serve messages',
        'messages-client',
        'agent',
        'run-bash',
        'serve tools',
        'serve mock-tools',
        'tool-client',
        'probe',
        'record messages',
        'record tools',
        'fixtures validate',
        'fixtures import',
        'merge-reports',
      ]),
    );
    for (const { path, command } of commands) {
      if (!doc.includes(`## \`wirecheck ${path.join(' ')}`)) missing.push(`section for ${path.join(' ')}`);
      for (const option of command.options) {
        if (option.long === '--help') continue;
        if (!new RegExp(`\`${option.long}[ \`]`).test(doc)) missing.push(`${path.join(' ')} ${option.long}`);
      }
    }
    expect(missing).toEqual([]);
  });
});

/** README.md and every docs/*.md, by name. */
async function userDocs(): Promise<{ name: string; text: string }[]> {
  const docsDir = new URL('../../docs/', import.meta.url);
  const names = (await readdir(docsDir)).filter((n) => n.endsWith('.md')).sort();
  return [
    { name: 'README.md', text: await readFile(new URL('../../README.md', import.meta.url), 'utf8') },
    ...(await Promise.all(
      names.map(async (n) => ({ name: `docs/${n}`, text: await readFile(new URL(n, docsDir), 'utf8') })),
    )),
  ];
}

describe('--faults examples', () => {
  test('every single-quoted --faults JSON in README.md and docs/*.md is a plan the mock accepts', async () => {
    const wrong: string[] = [];
    let seen = 0;
    for (const { name, text } of await userDocs()) {
      // Inside shell single quotes nothing is escaped: the text between them is what the CLI gets.
      for (const match of text.matchAll(/--faults '([^']*)'/g)) {
        seen++;
        const where = `${name}:${text.slice(0, match.index).split('\n').length}`;
        let json: unknown;
        try {
          json = JSON.parse(match[1] as string);
        } catch (e) {
          wrong.push(`${where}: not JSON (${(e as Error).message}): ${match[1]}`);
          continue;
        }
        const parsed = FaultPlan.safeParse(json);
        if (!parsed.success) {
          const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(top level)'}: ${i.message}`);
          wrong.push(`${where}: ${issues.join('; ')}: ${match[1]}`);
        }
      }
    }
    expect(seen).toBeGreaterThan(0);
    expect(wrong).toEqual([]);
  });
});
