import { chmod, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunnerToolUse } from '../../src/protocol/bash/index.js';
import { createBashRunner, type IsolationLevel, RunnerStartError } from '../../src/runner/index.js';

/** A fresh directory the unprivileged uid can pass through (mkdtemp makes 0700). */
export async function tempBase(cleanup: (() => Promise<void>)[]): Promise<string> {
  const base = await mkdtemp(join(tmpdir(), 'wirecheck-runner-test-'));
  await chmod(base, 0o755);
  cleanup.push(() => rm(base, { recursive: true, force: true }));
  return base;
}

let ids = 0;
export function use(command: string, extra: { restart?: boolean } = {}): RunnerToolUse {
  ids += 1;
  return { type: 'tool_use', id: `toolu_test_${ids}`, name: 'bash', input: { command, ...extra } };
}

/** Live (not zombie, per FACTS.md) processes whose command line contains `needle`. */
export async function liveProcessesWith(needle: string): Promise<number[]> {
  const found: number[] = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const cmdline = await readFile(`/proc/${name}/cmdline`, 'utf8').catch(() => '');
    if (!cmdline.split('\0').includes(needle)) continue;
    const stat = await readFile(`/proc/${name}/stat`, 'utf8').catch(() => '');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    if (state !== '' && state !== 'Z') found.push(Number(name));
  }
  return found;
}

/** Polls until no live process carries `needle`, for at most `ms`; the survivors. */
export async function survivorsAfter(needle: string, ms = 3000): Promise<number[]> {
  const until = Date.now() + ms;
  for (let i = 0; i < 100; i++) {
    const live = await liveProcessesWith(needle);
    if (live.length === 0 || Date.now() > until) return live;
    await new Promise((r) => setTimeout(r, 50));
  }
  return liveProcessesWith(needle);
}

/** The isolation levels that start on this machine (probed once per test file). */
export async function availableLevels(workdir: string): Promise<IsolationLevel[]> {
  const levels: IsolationLevel[] = [];
  for (const isolation of ['bwrap', 'util-linux', 'none'] as const) {
    try {
      const runner = await createBashRunner({ workdir, isolation });
      await runner.close();
      levels.push(isolation);
    } catch (error) {
      if (!(error instanceof RunnerStartError)) throw error;
    }
  }
  return levels;
}

export const isRoot = process.getuid?.() === 0;

/**
 * Shell text that starts `sleep <seconds>` in a new session (out of the command's process
 * group, holding its stdout) and waits, at most 5 s, until it has left the group, so the
 * runner's group kill at exit cannot catch it by luck. Runs in a writable cwd.
 */
export function escapeThenReport(seconds: string): string {
  const ready = `escaped-${seconds}`;
  return (
    `(setsid sh -c ': > ${ready}; exec sleep ${seconds}' &); ` +
    `for i in $(seq 250); do [ -e ${ready} ] && break; sleep 0.02; done; rm -f ${ready}`
  );
}
