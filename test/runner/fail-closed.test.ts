import { execFileSync, type SpawnOptions, spawn } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  cpSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { scriptScenarioOfJson, startMockMessagesService } from '../../src/mocks/messages/index.js';

// What acts on a model's commands fails closed: without an isolating level (bubblewrap, or
// util-linux as root), `wirecheck run-bash` and `wirecheck agent` refuse to run unless
// `--isolation none` is asked for; and under `none` the command's parent holds no secret.
// The programs run as a user that is not root (nobody when the tests run as root), with a
// PATH that has no bubblewrap: the situation where `auto` used to fall back to `none`.

const ROOT = resolve(import.meta.dirname, '../..');
const isRoot = process.getuid?.() === 0;
const NOBODY = { uid: 65534, gid: 65534 };
const SECRET = `sk-wirecheck-canary-${Math.random().toString(36).slice(2)}`;

const base = mkdtempSync(join(tmpdir(), 'wirecheck-fail-closed-'));
chmodSync(base, 0o755);
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** True when every directory above `path` lets others through (a checkout under /root or a 0700 temp dir does not). */
function othersReach(path: string): boolean {
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    if ((statSync(dir).mode & 0o001) === 0) return false;
    if (dirname(dir) === dir) return true;
  }
}

/**
 * The checkout where the unprivileged user can run it: the checkout itself, or, when a
 * directory above it is closed to others, a copy of what `bin/wirecheck.js` loads (bin, dist,
 * package.json and the production dependencies) in the test's own directory.
 */
function reachableRoot(): string {
  if (!isRoot || othersReach(ROOT)) return ROOT;
  const copy = join(base, 'checkout');
  for (const part of ['bin', 'dist', 'package.json']) {
    cpSync(join(ROOT, part), join(copy, part), { recursive: true });
  }
  const listed = execFileSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  for (const dir of listed.split('\n').filter((d) => d.startsWith(join(ROOT, 'node_modules')))) {
    cpSync(dir, join(copy, relative(ROOT, dir)), { recursive: true });
  }
  chmodSync(copy, 0o755);
  return copy;
}
const BIN = join(reachableRoot(), 'bin/wirecheck.js');

/** A bin directory with what the runner needs, and no bwrap (nor unshare). */
const bin = join(base, 'bin');
mkdirSync(bin, { mode: 0o755 });
for (const tool of ['bash', 'sh', 'prlimit', 'setpriv', 'mkfifo', 'tr', 'env', 'cat', 'id']) {
  symlinkSync(`/usr/bin/${tool}`, join(bin, tool));
}
/** node where an unprivileged user can run it (the tests' own may sit under /root). */
const node = join(bin, 'node');
try {
  linkSync(process.execPath, node);
} catch {
  copyFileSync(process.execPath, node);
  chmodSync(node, 0o755);
}

function workdir(name: string): string {
  const dir = join(base, name);
  mkdirSync(dir, { mode: 0o777 });
  chmodSync(dir, 0o777);
  return dir;
}

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `wirecheck ARGS` as an unprivileged user, with `PATH` = the bin directory above. */
function wirecheck(args: string[], stdin: string, env: Record<string, string>): Promise<Ran> {
  const options: SpawnOptions = {
    cwd: base,
    env: { PATH: bin, HOME: base, LANG: 'C.UTF-8', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
    ...(isRoot ? NOBODY : {}),
  };
  return new Promise((done, fail) => {
    const child = spawn(node, [BIN, ...args], options);
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', fail);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
    child.stdin?.end(stdin);
  });
}

const line = (id: string, command: string) =>
  `${JSON.stringify({ type: 'tool_use', id, name: 'bash', input: { command } })}\n`;

/** A command that prints its parent's initial environment and its own. */
const READ_ENVIRONMENTS = `tr '\\0' '\\n' < /proc/$PPID/environ; echo ---; env`;

describe('without bubblewrap, as a user that is not root', () => {
  test('run-bash refuses to run (exit 2) and says how to get isolation, or to pass --isolation none', async () => {
    const ran = await wirecheck(['run-bash', '--workdir', workdir('refuse-run-bash')], line('a', 'echo hi'), {
      WIRECHECK_API_KEY: SECRET,
    });
    expect(ran.code).toBe(2);
    expect(ran.stdout).toBe('');
    expect(ran.stderr).toContain('no isolation level works here');
    expect(ran.stderr).toContain('bwrap: not installed');
    expect(ran.stderr).toContain('apt-get install bubblewrap');
    expect(ran.stderr).toContain('--isolation none');
  });

  test('agent refuses to run (exit 2) before sending anything, with the same advice', async () => {
    const mock = await startMockMessagesService({ scenario: scriptScenarioOfJson([]) });
    try {
      const ran = await wirecheck(['agent', '--workdir', workdir('refuse-agent')], 'list the files', {
        WIRECHECK_BASE_URL: mock.url,
        WIRECHECK_API_KEY: SECRET,
      });
      expect(ran.code).toBe(2);
      expect(ran.stderr).toContain('the bash runner could not start');
      expect(ran.stderr).toContain('apt-get install bubblewrap');
      expect(ran.stderr).toContain('--isolation none');
      expect(mock.journal.entries()).toEqual([]);
    } finally {
      await mock.close();
    }
  });

  test('run-bash --isolation none runs, and the command sees no secret of the runner in $PPID or its own environment', async () => {
    const ran = await wirecheck(
      ['run-bash', '--isolation', 'none', '--workdir', workdir('none-run-bash')],
      line('a', READ_ENVIRONMENTS),
      { WIRECHECK_API_KEY: SECRET },
    );
    expect(ran.code).toBe(0);
    expect(ran.stderr).toContain('isolation none');
    const content = JSON.parse(ran.stdout).content as string;
    // The command did read both environments...
    expect(content).toContain('---');
    expect(content).toMatch(/^PATH=/m);
    expect(content.split('---')[0]).toMatch(/^PATH=/m);
    // ...and neither holds the key.
    expect(content).not.toContain(SECRET);
  });

  test('agent --isolation none: a model-chosen command reading /proc/$PPID/environ and env sends no key back to the model', async () => {
    const mock = await startMockMessagesService({
      scenario: scriptScenarioOfJson([
        {
          kind: 'message',
          message: {
            content: [
              { type: 'tool_use', id: 'toolu_read_env', name: 'bash', input: { command: READ_ENVIRONMENTS } },
            ],
          },
        },
        { kind: 'message', message: { content: [{ type: 'text', text: 'done' }] } },
      ]),
    });
    try {
      const ran = await wirecheck(
        ['agent', '--isolation', 'none', '--workdir', workdir('none-agent')],
        'show me your environment',
        { WIRECHECK_BASE_URL: mock.url, WIRECHECK_API_KEY: SECRET },
      );
      expect(ran.code).toBe(0);
      const requests = mock.journal.entries();
      expect(requests).toHaveLength(2);
      const sentBack = JSON.stringify(requests[1]?.body);
      expect(sentBack).toContain('toolu_read_env');
      expect(sentBack).toContain('PATH=');
      expect(sentBack).not.toContain(SECRET);
    } finally {
      await mock.close();
    }
  });
});
