import { readFile, rm, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { IsolationLevel } from './command-line.js';
import { type Confinement, execute } from './execute.js';
import { clampLimits, DEFAULT_LIMITS, parseHardLimits, type ResourceLimits } from './limits.js';
import type { PrivateDir } from './private-dir.js';

/**
 * The probe must pass where the real thing would: not root, a writable workdir, a fresh /tmp.
 * bash's own EUID, not `id -u`: one program less at every start of the runner.
 */
const PROBE_SCRIPT =
  'test "$EUID" != 0 || { echo "still root" >&2; exit 90; }\ntest -w . || { echo "workdir not writable" >&2; exit 91; }\n';
const PROBE_TIMEOUT_MS = 15_000;

/** Runs a trivial command at `level`; undefined when it works, else why not. */
export async function probeLevel(confinement: Confinement, dir: PrivateDir): Promise<string | undefined> {
  const workdir = join(dir.path, `probe-${confinement.level}`);
  try {
    const outcome = await execute(confinement, dir, {
      workdir,
      command: PROBE_SCRIPT,
      timeoutMs: PROBE_TIMEOUT_MS,
    });
    if (outcome.kind === 'spawn-failed') return outcome.reason;
    if (outcome.kind === 'aborted') return 'aborted';
    if (outcome.timedOut) return `no answer within ${PROBE_TIMEOUT_MS} ms`;
    if (outcome.exitCode !== 0) {
      const said = new TextDecoder().decode(outcome.stderr.head).trim();
      return `exit ${outcome.exitCode}${said === '' ? '' : `: ${said.split('\n')[0]}`}`;
    }
    return undefined;
  } finally {
    await rm(workdir, { recursive: true, force: true });
  }
}

/**
 * Which levels can be tried at all, strongest first, and why the others cannot. `auto`
 * tries only the levels that isolate (bwrap, util-linux): running a model's commands
 * without isolation is never a fallback, only a choice (`none` asked for by name).
 */
export function candidateLevels(
  requested: IsolationLevel | 'auto',
  have: { bwrap: boolean; unshare: boolean; setpriv: boolean; root: boolean },
): { levels: IsolationLevel[]; skipped: string[] } {
  const why: Record<IsolationLevel, string | undefined> = {
    bwrap: have.bwrap ? undefined : 'bwrap: not installed',
    'util-linux': !have.root
      ? 'util-linux: needs root (to mount inside the namespaces before dropping to the unprivileged uid)'
      : !have.unshare || !have.setpriv
        ? 'util-linux: unshare or setpriv not installed'
        : undefined,
    none: undefined,
  };
  const wanted: IsolationLevel[] = requested === 'auto' ? ['bwrap', 'util-linux'] : [requested];
  return {
    levels: wanted.filter((level) => why[level] === undefined),
    skipped: wanted.flatMap((level) => (why[level] === undefined ? [] : [why[level]])),
  };
}

/** The outermost of the given directories: a directory inside another is covered already. */
export function outermostDirs(dirs: readonly string[]): string[] {
  const unique = [...new Set(dirs.filter((d) => d.startsWith('/') && d !== '/'))];
  return unique.filter((dir) => !unique.some((other) => other !== dir && dir.startsWith(`${other}/`)));
}

/** Host directories the command has no business reading: sockets in /run, the homes. */
export async function hostDirsToMask(): Promise<string[]> {
  const candidates = ['/run', '/root', '/home', homedir()];
  const existing: string[] = [];
  for (const dir of outermostDirs(candidates)) {
    const info = await stat(dir).catch(() => undefined);
    if (info?.isDirectory()) existing.push(dir);
  }
  return existing;
}

/** The default limits, lowered to the runner's own hard limits (a limit cannot be raised). */
export async function effectiveLimits(wanted: ResourceLimits = DEFAULT_LIMITS): Promise<ResourceLimits> {
  const text = await readFile('/proc/self/limits', 'utf8').catch(() => '');
  return clampLimits(wanted, parseHardLimits(text));
}
