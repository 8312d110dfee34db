import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBashRunner, RunnerStartError, type ToolOverrides } from '../../runner/index.js';

/** Undefined when the reference runner's `auto` isolation works on this machine, else why not. */
export type IsolationProbe = () => Promise<string | undefined>;

/** How `wirecheck all` starts the reference runner and agent: extra arguments, and a note to print. */
export interface ReferenceIsolation {
  /** `[]` (auto isolation), or `['--isolation', 'none']`. */
  readonly args: readonly string[];
  /** Set when isolation is off: why, and how to get it. */
  readonly note?: string;
}

/**
 * Starts the reference runner with `auto` isolation once (its probe runs a trivial command)
 * and closes it. `tools` stands in for the machine's (null: not installed), for tests.
 */
export const probeRunnerIsolation = async (tools?: ToolOverrides): Promise<string | undefined> => {
  const dir = await mkdtemp(join(tmpdir(), 'wirecheck-isolation-probe-'));
  try {
    const runner = await createBashRunner({ workdir: join(dir, 'workdir'), isolation: 'auto', tools });
    await runner.close();
    return undefined;
  } catch (e) {
    if (e instanceof RunnerStartError) return e.message;
    throw e;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};

let cached: Promise<ReferenceIsolation> | undefined;

/**
 * Isolation for the references that `wirecheck all` runs. The reference runner and agent
 * fail closed (they refuse to run a model's commands unconfined unless `--isolation none` is
 * given by name); under `all` the commands are the suites' own, so where no isolation level
 * works (a user without bubblewrap) they run with an explicit `--isolation none` and the note
 * says so, instead of the suites being refused. Probed once per process.
 */
export function referenceIsolation(probe?: IsolationProbe): Promise<ReferenceIsolation> {
  if (probe !== undefined) return decide(probe);
  cached ??= decide(() => probeRunnerIsolation());
  return cached;
}

async function decide(probe: IsolationProbe): Promise<ReferenceIsolation> {
  const problem = await probe();
  if (problem === undefined) return { args: [] };
  const reasons = problem
    .replace(/^no isolation level works here:\s*/, '')
    .replace(/\.?\s*To isolate commands,.*$/s, '')
    .trim();
  return {
    args: ['--isolation', 'none'],
    note:
      `note: no isolation level works on this machine (${reasons}), so the reference runner and agent run with --isolation none: ` +
      "their commands are the suites' own test commands, not a model's, and run unconfined, as this user. " +
      'To run them isolated, install bubblewrap (Debian, Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap) ' +
      'where unprivileged user namespaces are allowed, or run wirecheck as root (util-linux).',
  };
}
