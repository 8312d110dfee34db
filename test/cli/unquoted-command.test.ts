import { Readable } from 'node:stream';
import { Command } from 'commander';
import { describe, expect, test } from 'vitest';
import type { CliContext } from '../../src/cli/context.js';
import { DEPS } from '../../src/cli/main.js';
import { unquotedCommandHint } from '../../src/cli/program.js';
import { targetMain } from '../../src/cli/target-main.js';
import { cli } from './fake-suites.js';

// A target command typed without quotes (`--runner python3 my_runner.py`) split into words:
// commander reported the second word as an extra argument, or its first flag as an unknown
// option, and never said that the command is one value.

describe('a command-taking option followed by the unquoted rest of the command', () => {
  test("extra arguments: the error keeps commander's words, adds the quoted command, exit 2", async () => {
    const run = await cli(['test', 'runner', '--runner', 'python3', 'my_runner.py'], { deps: DEPS });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      [
        "wirecheck: WC_USAGE: too many arguments for 'test'. Expected 1 argument but got 2: runner, my_runner.py.",
        'the command and its arguments are one value: --runner "python3 my_runner.py"',
        '(add --help for usage)',
        '',
      ].join('\n'),
    );
  });

  test('an unknown option: the hint takes every word up to the next option of the command', async () => {
    const run = await cli(
      [
        'test',
        'tool-server',
        '--stdio',
        'npx',
        '-y',
        '@modelcontextprotocol/server-everything',
        '--seed',
        '3',
      ],
      { deps: DEPS },
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("wirecheck: WC_USAGE: unknown option '-y'\n");
    expect(run.stderr).toContain(
      'the command and its arguments are one value: --stdio "npx -y @modelcontextprotocol/server-everything"\n',
    );
  });

  test('every option whose value is a command gets it, in every command that has one', async () => {
    for (const [args, hint] of [
      [['test', 'agent', '--agent', 'node', 'agent.js'], '--agent "node agent.js"'],
      [['test', 'messages-client', '--client', 'node', 'client.mjs'], '--client "node client.mjs"'],
      [['test', 'tool-client', '--client', 'python3', '-u', 'client.py'], '--client "python3 -u client.py"'],
      [
        ['test', 'tool-server', '--http', 'http://127.0.0.1:9/mcp', '--start', 'node', 'server.js'],
        '--start "node server.js"',
      ],
      [['test', 'runner', '--runner=python3', 'my_runner.py'], '--runner "python3 my_runner.py"'],
      [['record', 'tools', '--stdio', 'node', 'server.js', '--out', 'x'], '--stdio "node server.js"'],
      [['tool-client', '--stdio', 'node', 'server.js', '--list'], '--stdio "node server.js"'],
    ] as const) {
      const run = await cli([...args], { deps: DEPS });
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr, args.join(' ')).toContain(`the command and its arguments are one value: ${hint}\n`);
    }
  });

  test('tool-client run as a per-case target command gets it too', async () => {
    let stderr = '';
    const code = await targetMain(['node', 'wirecheck', 'tool-client', '--stdio', 'node', 'server.js'], {
      stdout: { write: () => {}, isTTY: false },
      stderr: { write: (s: string) => (stderr += s), isTTY: false },
      stdin: Readable.from([]),
      env: {},
      onShutdown: () => ({ signal: new AbortController().signal, dispose: () => {} }),
    } satisfies Partial<CliContext>);
    expect(code).toBe(2);
    expect(stderr).toContain('the command and its arguments are one value: --stdio "node server.js"\n');
  });

  test('no hint where the extra word does not follow a command', async () => {
    const before = await cli(['test', 'runner', 'extra', '--runner', 'python3 my_runner.py'], { deps: DEPS });
    expect(before.code).toBe(2);
    expect(before.stderr).toContain('too many arguments');
    expect(before.stderr).not.toContain('one value');
    const unknown = await cli(['test', 'runner', '--runner', 'python3 my_runner.py', '--sed', '3'], {
      deps: DEPS,
    });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown option '--sed'");
    expect(unknown.stderr).not.toContain('one value');
  });
});

describe('unquotedCommandHint', () => {
  const command = new Command('x')
    .option('--runner <cmd>', 'a command')
    .option('--seed <n>', 'a value')
    .option('--full', 'a switch');
  const hint = (tokens: string[], culprit: string) =>
    unquotedCommandHint(command, tokens, (word) => word === culprit);

  test('quotes a word sh would split or expand', () => {
    expect(hint(['--runner', 'python3', 'my file.py'], 'my file.py')).toBe(
      `the command and its arguments are one value: --runner "python3 'my file.py'"`,
    );
  });

  test('single-quotes the whole when double quotes would let sh expand it', () => {
    expect(hint(['--runner', 'echo', '$HOME'], '$HOME')).toBe(
      `the command and its arguments are one value: --runner 'echo '\\''$HOME'\\'''`,
    );
  });

  test("skips the values of other options, and stops at the command's next option", () => {
    expect(hint(['--seed', 'python3', '--runner', 'a', 'b', '--full', 'c'], 'b')).toBe(
      'the command and its arguments are one value: --runner "a b"',
    );
    expect(hint(['--seed', 'python3', '--runner', 'a', 'b', '--full', 'c'], 'c')).toBeUndefined();
    expect(hint(['--seed', '--runner', 'a', 'b'], 'b')).toBeUndefined();
    expect(hint(['--runner'], 'b')).toBeUndefined();
  });

  test('none when the command was quoted: what follows it is no part of it', () => {
    expect(hint(['--runner', 'node x.js', 'extra'], 'extra')).toBeUndefined();
    expect(hint(['--runner', 'node x.js', '--sed', '3'], '--sed')).toBeUndefined();
  });
});
