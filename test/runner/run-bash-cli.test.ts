import { join } from 'node:path';
import { Readable } from 'node:stream';
import { Command } from 'commander';
import { afterAll, describe, expect, test } from 'vitest';
import type { CliContext } from '../../src/cli/context.js';
import { addRunBashCommand } from '../../src/cli/run-bash.js';
import type { RunBashService } from '../../src/cli/run-bash-action.js';
import { WirecheckError } from '../../src/harness/errors.js';
import { RunnerStartError, runBashService } from '../../src/runner/index.js';
import { tempBase } from './helpers.js';

const cleanup: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanup.reverse()) await c();
});

async function runBash(
  args: string[],
  stdin: string,
  env: NodeJS.ProcessEnv = {},
  serve: RunBashService = runBashService,
) {
  let stdout = '';
  let stderr = '';
  let exitCode: number | undefined;
  const ctx: CliContext = {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    stdin: Readable.from([Buffer.from(stdin, 'utf8')]),
    env,
    deps: {},
    onShutdown: () => ({ signal: new AbortController().signal, dispose: () => {} }),
  };
  const program = new Command('wirecheck').exitOverride().configureOutput({
    writeOut: (s) => (stdout += s),
    writeErr: (s) => (stderr += s),
  });
  addRunBashCommand(program, ctx, serve, (code) => {
    exitCode = code;
  });
  await program.parseAsync(['run-bash', ...args], { from: 'user' });
  return { stdout, stderr, exitCode };
}

const line = (id: string, command: string) =>
  `${JSON.stringify({ type: 'tool_use', id, name: 'bash', input: { command } })}\n`;

describe('wirecheck run-bash', () => {
  test('answers each stdin line on stdout, logs the isolation level on stderr, exits 0 when stdin closes', async () => {
    const workdir = join(await tempBase(cleanup), 'wd');
    const { stdout, stderr, exitCode } = await runBash([], line('a', 'pwd') + line('b', 'exit 2'), {
      WIRECHECK_WORKDIR: workdir,
    });
    expect(
      stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l)),
    ).toEqual([
      { type: 'tool_result', tool_use_id: 'a', content: `${workdir}\n`, is_error: false },
      {
        type: 'tool_result',
        tool_use_id: 'b',
        content: '(no output was produced; exit code 2)',
        is_error: true,
      },
    ]);
    expect(stderr).toMatch(/wirecheck run-bash: .*isolation (bwrap|util-linux|none)/);
    expect(exitCode).toBe(0);
  });

  test('--timeout and WIRECHECK_TIMEOUT_S set the timeout (the option wins)', async () => {
    const workdir = join(await tempBase(cleanup), 'wd');
    const viaEnv = await runBash([], line('t', 'sleep 5'), {
      WIRECHECK_WORKDIR: workdir,
      WIRECHECK_TIMEOUT_S: '1',
    });
    expect(JSON.parse(viaEnv.stdout).content).toMatch(/^Command timed out after 1 seconds/);
    const viaOption = await runBash(['--timeout', '0.5', '--workdir', workdir], line('t', 'sleep 5'), {
      WIRECHECK_TIMEOUT_S: '9',
    });
    expect(JSON.parse(viaOption.stdout).content).toMatch(/^Command timed out after 0.5 seconds/);
  });

  test('--isolation none is honoured and reported', async () => {
    const workdir = join(await tempBase(cleanup), 'wd');
    const { stderr } = await runBash(['--isolation', 'none', '--workdir', workdir], line('x', 'true'));
    expect(stderr).toContain('isolation none');
  });

  test('without a working directory it is a usage error', async () => {
    await expect(runBash([], line('x', 'true'))).rejects.toThrow(/WIRECHECK_WORKDIR/);
  });

  test('a bad timeout is a usage error', async () => {
    await expect(runBash(['--workdir', '/tmp/x', '--timeout', 'soon'], '')).rejects.toThrow(/--timeout/);
    await expect(runBash(['--workdir', '/tmp/x', '--timeout', '0'], '')).rejects.toThrow(/more than 0/);
  });

  test('an unknown isolation level is a usage error', async () => {
    await expect(runBash(['--isolation', 'chroot', '--workdir', '/tmp/x'], '')).rejects.toThrow(/chroot/);
  });

  test('a runner that cannot start is a target-unavailable error', async () => {
    const failing: RunBashService = async () => {
      throw new RunnerStartError('no isolation level works here: bwrap: exit 1');
    };
    const attempt = runBash(['--workdir', '/tmp/x'], '', {}, failing);
    await expect(attempt).rejects.toSatisfy(
      (e) =>
        e instanceof WirecheckError && e.code === 'WC_TARGET_UNAVAILABLE' && /bwrap: exit 1/.test(e.message),
    );
  });
});
