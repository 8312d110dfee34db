import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, test } from 'vitest';
import type { CliContext } from '../../src/cli/context.js';
import { DEPS, main } from '../../src/cli/main.js';
import { targetCommandOf, targetMain } from '../../src/cli/target-main.js';
import { startMockMessagesService } from '../../src/mocks/messages/index.js';
import type { MockMessagesService } from '../../src/mocks/messages/options.js';
import { VERSION } from '../../src/version.js';

const BIN = resolve(import.meta.dirname, '../../bin/wirecheck.js');
const TARGET_COMMANDS = ['messages-client', 'agent', 'tool-client', 'run-bash', 'serve tools'];

/** One in-process run of `entry` on `args`, with `stdin`, capturing its output. */
async function runWith(
  entry: (argv: string[], context: Partial<CliContext>) => Promise<number>,
  args: string[],
  stdin: string,
  env: NodeJS.ProcessEnv = {},
) {
  let stdout = '';
  let stderr = '';
  const code = await entry(['node', 'wirecheck', ...args], {
    stdout: { write: (s: string) => (stdout += s), isTTY: false },
    stderr: { write: (s: string) => (stderr += s), isTTY: false },
    stdin: Readable.from([Buffer.from(stdin)]),
    env,
    onShutdown: () => ({ signal: new AbortController().signal, dispose: () => {} }),
  });
  return { code, stdout, stderr };
}

const whole = (argv: string[], context: Partial<CliContext>) => main(argv, { ...context, deps: DEPS });

describe('targetCommandOf', () => {
  test('names the commands a suite starts per case, and nothing else', () => {
    for (const name of TARGET_COMMANDS)
      expect(targetCommandOf(['node', 'wirecheck', ...name.split(' '), '--flag'])).toBe(name);
    for (const other of [
      'all',
      'test',
      'serve',
      'list',
      'toString',
      '--help',
      'serve messages',
      'serve mock-tools',
    ])
      expect(targetCommandOf(['node', 'wirecheck', ...other.split(' ')])).toBeUndefined();
    expect(targetCommandOf(['node', 'wirecheck'])).toBeUndefined();
  });
});

describe('a per-case target command run alone behaves as in the whole CLI', () => {
  test.each(TARGET_COMMANDS)('%s --help', async (name) => {
    const alone = await runWith(targetMain, [...name.split(' '), '--help'], '');
    const inWhole = await runWith(whole, [...name.split(' '), '--help'], '');
    expect(alone.code).toBe(0);
    expect(alone.stdout).toContain(`Usage: wirecheck ${name}`);
    expect(alone).toEqual(inWhole);
  });

  test.each([
    ['messages-client', []],
    ['agent', []],
    ['tool-client', []],
    // No working directory: the usage error, thrown by the action.
    ['run-bash', []],
    ['messages-client', ['--no-such-flag']],
    ['run-bash', ['--isolation', 'chroot']],
    // A value option given twice, one with choices among them: only one value could count.
    ['agent', ['--max-turns', '5', '--max-turns', '50']],
    ['run-bash', ['--isolation', 'bwrap', '--isolation', 'none']],
  ])('%s %j with empty stdin: the same status and output', async (name, flags) => {
    const env = { WIRECHECK_BASE_URL: 'http://127.0.0.1:9', WIRECHECK_API_KEY: 'k' };
    const alone = await runWith(targetMain, [name, ...flags], '', env);
    const inWhole = await runWith(whole, [name, ...flags], '', env);
    expect(alone.code).toBe(2);
    expect(alone).toEqual(inWhole);
    if (flags.length === 4) expect(alone.stderr).toContain(`WC_USAGE: ${flags[0]} is given twice`);
  });

  test('messages-client with a request: the same final message (alone, without commander)', async () => {
    const runs = [];
    for (const entry of [targetMain, whole]) {
      const mock = await startMockMessagesService({ apiKey: 'wc-key', seed: 3 });
      try {
        const body = {
          model: 'm',
          max_tokens: 16,
          stream: true,
          messages: [{ role: 'user', content: 'hi' }],
        };
        const env = { WIRECHECK_BASE_URL: mock.url, WIRECHECK_API_KEY: 'wc-key' };
        runs.push(await runWith(entry, ['messages-client'], JSON.stringify(body), env));
      } finally {
        await mock.close();
      }
    }
    const [alone, inWhole] = runs;
    expect(alone?.code).toBe(0);
    expect(JSON.parse(alone?.stdout ?? '')).toMatchObject({ type: 'message', content: [{ text: 'hi' }] });
    expect(alone).toEqual(inWhole);
  });

  test('run-bash with a working directory: the same answers', async () => {
    const runs = [];
    for (const entry of [targetMain, whole]) {
      const workdir = mkdtempSync(join(tmpdir(), 'wc-target-main-'));
      try {
        const line = { type: 'tool_use', id: 'toolu_1', name: 'bash', input: { command: 'echo hello' } };
        const env = { ...process.env, WIRECHECK_WORKDIR: workdir };
        runs.push(await runWith(entry, ['run-bash'], `${JSON.stringify(line)}\n`, env));
      } finally {
        rmSync(workdir, { recursive: true, force: true });
      }
    }
    const [alone, inWhole] = runs;
    expect(alone?.code).toBe(0);
    expect(JSON.parse(alone?.stdout ?? '')).toMatchObject({ tool_use_id: 'toolu_1', content: 'hello\n' });
    expect(alone?.stdout).toBe(inWhole?.stdout);
    expect(alone?.code).toBe(inWhole?.code);
  }, 30_000);

  test.each([
    [['--transport', 'stdio'], 0],
    [['--transport', 'carrier-pigeon'], 2],
  ])('serve tools %j with empty stdin: the same status and output', async (flags, status) => {
    const alone = await runWith(targetMain, ['serve', 'tools', ...flags], '');
    const inWhole = await runWith(whole, ['serve', 'tools', ...flags], '');
    expect(alone.code).toBe(status);
    expect(alone).toEqual(inWhole);
  });
});

/** bin/wirecheck.js run as a process with `stdin`: its exit status and stdout. */
function runBin(
  args: string[],
  stdin: string,
  env: NodeJS.ProcessEnv = process.env,
  nodeArgs: readonly string[] = [],
) {
  return new Promise<{ code: number | null; stdout: string }>((done, fail) => {
    const child = spawn(process.execPath, [...nodeArgs, BIN, ...args], {
      env,
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let text = '';
    child.stdout.on('data', (d: Buffer) => {
      text += d.toString();
    });
    child.on('error', fail);
    child.on('close', (c) => done({ code: c, stdout: text }));
    child.stdin.end(stdin);
  });
}

describe('bin/wirecheck.js serve tools --transport stdio (from the bundle)', () => {
  test('answers initialize with the package version', async () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    };
    const { code, stdout } = await runBin(
      ['serve', 'tools', '--transport', 'stdio'],
      `${JSON.stringify(initialize)}\n`,
    );
    expect(code).toBe(0);
    const answer = JSON.parse(stdout.split('\n')[0] ?? '') as { result: { serverInfo: { version: string } } };
    expect(answer.result.serverInfo.version).toBe(VERSION);
  }, 60_000);
});

describe('bin/wirecheck.js loads commander only for a command line to read', () => {
  const RECORD = resolve(import.meta.dirname, 'targets/record-modules.mjs');

  /** The modules a run of bin/wirecheck.js `args` loaded, with empty stdin. */
  async function modulesOf(args: string[]): Promise<string[]> {
    const dir = mkdtempSync(join(tmpdir(), 'wc-modules-'));
    try {
      const out = join(dir, 'modules.txt');
      const env = {
        ...process.env,
        WIRECHECK_TEST_MODULES_OUT: out,
        WIRECHECK_BASE_URL: 'http://127.0.0.1:9',
        WIRECHECK_API_KEY: 'k',
      };
      await runBin(args, '', env, ['--import', RECORD]);
      return readFileSync(out, 'utf8').split('\n').filter(Boolean);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const commander = (modules: string[]) => modules.filter((url) => /commander/.test(url));

  test.each(['messages-client', 'agent', 'tool-client', 'run-bash'])(
    '%s: no commander; with --help, commander',
    async (name) => {
      const bare = await modulesOf([name]);
      expect(bare.some((url) => url.endsWith('/dist/bundle/target-main.js'))).toBe(true);
      expect(commander(bare)).toEqual([]);
      expect(commander(await modulesOf([name, '--help']))).not.toEqual([]);
    },
    60_000,
  );
});

describe('bin/wirecheck.js messages-client', () => {
  let mock: MockMessagesService | undefined;
  afterEach(async () => {
    await mock?.close();
    mock = undefined;
  });

  test('answers a request through the mock with the final message', async () => {
    mock = await startMockMessagesService({ apiKey: 'wc-key', seed: 1 });
    const body = { model: 'claude-sonnet-4-5', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] };
    const { code, stdout } = await runBin(['messages-client'], JSON.stringify(body), {
      ...process.env,
      WIRECHECK_BASE_URL: mock.url,
      WIRECHECK_API_KEY: 'wc-key',
    });
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ type: 'message', role: 'assistant' });
    expect(mock.journal.entries()).toHaveLength(1);
  }, 60_000);
});
