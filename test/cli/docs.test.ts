import { readFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import type { Command } from 'commander';
import { describe, expect, test } from 'vitest';
import type { CliContext } from '../../src/cli/context.js';
import { buildProgram, DEPS } from '../../src/cli/main.js';

function allCommands(command: Command, path: string[] = []): { path: string[]; command: Command }[] {
  return command.commands.flatMap((sub) => {
    const subPath = [...path, sub.name()];
    return [{ path: subPath, command: sub }, ...allCommands(sub, subPath)];
  });
}

describe('docs/cli.md', () => {
  test('documents every command and every option of the CLI', async () => {
    const doc = await readFile(new URL('../../docs/cli.md', import.meta.url), 'utf8');
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
    const program = buildProgram(ctx, ignore);
    const missing: string[] = [];
    const commands = allCommands(program).filter(({ command }) => command.commands.length === 0);
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
