import { Readable } from 'node:stream';
import { Command } from 'commander';
import { expect, test } from 'vitest';
import { type AgentCommandFlags, addAgentCommand, type RunAgentCommand } from '../../../src/cli/agent.js';
import type { CliContext } from '../../../src/cli/context.js';
import { runAgentCommand } from '../../../src/clients/agent/index.js';

function program(run: RunAgentCommand, stdin: string) {
  const codes: number[] = [];
  const ctx: CliContext = {
    stdout: { write: () => true },
    stderr: { write: () => true, isTTY: false },
    stdin: Readable.from([Buffer.from(stdin)]),
    env: { WIRECHECK_MAX_TURNS: '9' },
    deps: {},
    onShutdown: () => ({ signal: new AbortController().signal, dispose: () => {} }),
  };
  const root = new Command('wirecheck').exitOverride();
  addAgentCommand(root, ctx, run, (code) => codes.push(code));
  return { root, codes };
}

test('`wirecheck agent` hands the prompt, the environment and its flags to the agent and finishes with its exit status', async () => {
  let seen: { stdin: string; flags: AgentCommandFlags; env: NodeJS.ProcessEnv } | undefined;
  const { root, codes } = program(async (input) => {
    seen = { stdin: input.stdin, flags: input.flags, env: input.env };
    return 3;
  }, 'list the files\n');
  await root.parseAsync(
    [
      'agent',
      '--max-turns',
      '4',
      '--workdir',
      '/tmp/w',
      '--transcript',
      't.jsonl',
      '--stream',
      '--command-timeout',
      '2',
    ],
    { from: 'user' },
  );
  expect(seen?.stdin).toBe('list the files\n');
  expect(seen?.flags).toEqual({
    maxTurns: '4',
    workdir: '/tmp/w',
    transcript: 't.jsonl',
    stream: true,
    commandTimeout: '2',
  });
  expect(seen?.env.WIRECHECK_MAX_TURNS).toBe('9');
  expect(codes).toEqual([3]);
});

test('the library call fits the CLI hook as it is (main.ts passes runAgentCommand in)', () => {
  const wired: RunAgentCommand = runAgentCommand;
  expect(typeof wired).toBe('function');
});
