import { HELPER_PATH } from './environment.js';
import type { ResourceLimits } from './limits.js';
import { DEV_SHM_BYTES, MASK_TMPFS_BYTES, SANDBOX_ROOT_BYTES } from './limits.js';
import { SANDBOX_SYSTEM_DIRS, UTIL_LINUX_SETUP } from './util-linux-setup.js';

/**
 * How strongly a command is confined, strongest first:
 * - `bwrap`: bubblewrap sandbox (read-only root, private /tmp, no network, own PID namespace);
 * - `util-linux`: the same built from unshare, mount and setpriv (needs root);
 * - `none`: own process group, unprivileged uid when started as root, limits; no namespaces.
 */
export const ISOLATION_LEVELS = ['bwrap', 'util-linux', 'none'] as const;
export type IsolationLevel = (typeof ISOLATION_LEVELS)[number];

/** Paths of the programs the runner starts; an absent one is not installed. */
export interface Tools {
  readonly bash: string;
  readonly sh: string;
  readonly bwrap?: string | undefined;
  readonly prlimit?: string | undefined;
  readonly unshare?: string | undefined;
  readonly setpriv?: string | undefined;
}

export interface Identity {
  readonly uid: number;
  readonly gid: number;
}

/** Everything needed to build the command line that runs one command. */
export interface CommandPlan {
  readonly level: IsolationLevel;
  readonly workdir: string;
  /** The script file on the host (util-linux, none); bwrap gets the script through fd 3 instead. */
  readonly scriptPath: string;
  /** util-linux: the sandbox skeleton written once per runner (writeSandboxSkeleton). */
  readonly skeletonPath?: string | undefined;
  /** The command's whole environment. */
  readonly env: Readonly<Record<string, string>>;
  /** The unprivileged identity to run as (when the runner is root), or null to stay as is. */
  readonly runAs: Identity | null;
  /** Resource limits, or null when prlimit is not available. */
  readonly limits: ResourceLimits | null;
  readonly tmpBytes: number;
  /** Existing host directories to hide behind an empty tmpfs (bwrap, util-linux). */
  readonly masked: readonly string[];
  /**
   * The seccomp filter that refuses `socket(AF_UNIX)` (seccomp.ts), handed to bwrap through
   * fd 5; null where there is none for this architecture.
   */
  readonly seccomp: Uint8Array | null;
  readonly tools: Tools;
}

/**
 * What the spawner gets: a program with its arguments and the meaning of each extra fd
 * (fd 3 onwards, in order): `script-in` is a pipe the runner writes the script into,
 * `info-out` a pipe bwrap writes its JSON info (the sandbox's pid) to, `seccomp-in` a pipe
 * the runner writes `seccomp` into, `marker` the session's marker file, inherited by every
 * process the command starts.
 */
export interface SpawnSpec {
  readonly file: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly runAs: Identity | null;
  readonly extraFds: readonly ('script-in' | 'info-out' | 'seccomp-in' | 'marker')[];
  /** What `seccomp-in` carries. */
  readonly seccomp?: Uint8Array | undefined;
}

/** Where bwrap puts the script inside the sandbox (on its private /run). */
export const SANDBOX_SCRIPT_PATH = '/run/wirecheck-command.sh';
const BASH_FLAGS = ['--norc', '--noprofile'] as const;

export class CommandLineError extends Error {
  override readonly name = 'CommandLineError';
}

function required(tool: keyof Tools, tools: Tools, level: IsolationLevel): string {
  const path = tools[tool];
  if (path === undefined) throw new CommandLineError(`isolation ${level} needs ${tool}, which was not found`);
  return path;
}

/** `prlimit … --`: limits are set before anything else runs, and inherited by all. */
function limitArgs(plan: CommandPlan): string[] {
  if (plan.limits === null || plan.tools.prlimit === undefined) return [];
  const { processes, openFiles, fileSizeBytes } = plan.limits;
  return [
    plan.tools.prlimit,
    `--nproc=${processes}`,
    `--nofile=${openFiles}`,
    `--fsize=${fileSizeBytes}`,
    '--core=0',
    '--',
  ];
}

/** The program and its arguments from a flat argv. */
function specOf(argv: string[], rest: Omit<SpawnSpec, 'file' | 'args'>): SpawnSpec {
  const [file, ...args] = argv;
  return { file: file!, args, ...rest };
}

export function bwrapCommandLine(plan: CommandPlan): SpawnSpec {
  const bwrap = required('bwrap', plan.tools, 'bwrap');
  const { workdir } = plan;
  const argv = [
    ...limitArgs(plan),
    bwrap,
    // Kills the sandbox when the runner dies; the runner's SIGTERM goes to the sandbox's
    // own group (found through --info-fd), since a SIGTERM to bwrap is an instant kill.
    '--die-with-parent',
    '--new-session',
    '--info-fd',
    '4',
    '--unshare-all',
    '--unshare-user',
    '--disable-userns',
    '--cap-drop',
    'ALL',
    '--ro-bind',
    '/',
    '/',
    // /dev's own tmpfs cannot be sized here (bubblewrap's --size is for --tmpfs only): it is
    // made read-only, and /dev/shm, the one place a command writes in it, is a sized tmpfs.
    '--dev',
    '/dev',
    '--size',
    String(DEV_SHM_BYTES),
    '--tmpfs',
    '/dev/shm',
    '--remount-ro',
    '/dev',
    '--proc',
    '/proc',
    ...[...new Set(['/run', ...plan.masked])].flatMap((dir) => [
      '--size',
      String(MASK_TMPFS_BYTES),
      '--tmpfs',
      dir,
    ]),
    '--size',
    String(plan.tmpBytes),
    '--tmpfs',
    '/tmp',
    '--bind',
    workdir,
    workdir,
    '--chdir',
    workdir,
    '--ro-bind-data',
    '3',
    SANDBOX_SCRIPT_PATH,
    ...(plan.seccomp === null ? [] : ['--seccomp', '5']),
    '--clearenv',
    ...Object.entries(plan.env).flatMap(([name, value]) => ['--setenv', name, value]),
    '--',
    plan.tools.bash,
    ...BASH_FLAGS,
    SANDBOX_SCRIPT_PATH,
  ];
  return specOf(argv, {
    cwd: '/',
    env: { PATH: HELPER_PATH },
    runAs: plan.runAs,
    extraFds: plan.seccomp === null ? ['script-in', 'info-out'] : ['script-in', 'info-out', 'seccomp-in'],
    seccomp: plan.seccomp ?? undefined,
  });
}

/** Whether an absolute path lies in a directory the util-linux sandbox's root shows. */
function inSandboxRoot(path: string): boolean {
  return SANDBOX_SYSTEM_DIRS.some((dir) => path.startsWith(`/${dir}/`));
}

/** A name sh can export (POSIX: a name of the shell's variables). */
const SHELL_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function utilLinuxCommandLine(plan: CommandPlan): SpawnSpec {
  const unshare = required('unshare', plan.tools, 'util-linux');
  const setpriv = required('setpriv', plan.tools, 'util-linux');
  if (plan.runAs === null) {
    throw new CommandLineError(
      'isolation util-linux runs as root to set up mounts and needs a uid to drop to',
    );
  }
  if (plan.skeletonPath === undefined) {
    throw new CommandLineError(
      'isolation util-linux builds its sandbox from a skeleton, and none was written',
    );
  }
  const unexportable = Object.keys(plan.env).find((name) => !SHELL_NAME.test(name));
  if (unexportable !== undefined) {
    throw new CommandLineError(
      `isolation util-linux sets the environment with sh's export, which takes names of letters, digits and _ not starting with a digit; got ${JSON.stringify(unexportable)}`,
    );
  }
  for (const [name, path] of [
    ['bash', plan.tools.bash],
    ['setpriv', setpriv],
  ] as const) {
    if (!inSandboxRoot(path)) {
      throw new CommandLineError(
        `isolation util-linux runs ${name} inside a root of the system directories only (/${SANDBOX_SYSTEM_DIRS.join(', /')}), and ${path} is not in one`,
      );
    }
  }
  const argv = [
    // The namespaces die with unshare (--kill-child), and unshare with the runner.
    setpriv,
    '--pdeathsig',
    'KILL',
    '--',
    ...limitArgs(plan),
    unshare,
    '--pid',
    '--fork',
    '--kill-child',
    '--mount-proc',
    '--net',
    '--ipc',
    '--uts',
    '--mount',
    '--propagation',
    'private',
    '--',
    plan.tools.sh,
    '-c',
    UTIL_LINUX_SETUP,
    'wirecheck-setup',
    plan.scriptPath,
    plan.workdir,
    plan.skeletonPath,
    String(plan.tmpBytes),
    String(DEV_SHM_BYTES),
    String(SANDBOX_ROOT_BYTES),
    String(plan.runAs.uid),
    String(plan.runAs.gid),
    setpriv,
    plan.tools.bash,
    String(plan.masked.length),
    ...plan.masked,
    ...Object.entries(plan.env).map(([name, value]) => `${name}=${value}`),
  ];
  // Root until setpriv drops to runAs inside the namespaces.
  return specOf(argv, { cwd: '/', env: { PATH: HELPER_PATH }, runAs: null, extraFds: [] });
}

/**
 * Isolation `none`: bash is not the runner's child but the child of a small `sh` started
 * with the command's own minimal environment, so that `/proc/$PPID/environ` shows that
 * environment and not the runner's (an agent's API key). The sh survives the terminate
 * signal meant for the command (a handler, which bash does not inherit: the command's
 * own trap still runs within the grace) and exits with bash's status. Its own stderr is
 * /dev/null (the command's is kept on fd 9 and given back in a subshell that becomes
 * bash), so its job reports ("Killed") are not taken for the command's output.
 */
export const NO_ISOLATION_PARENT =
  'trap : TERM INT HUP; exec 9>&2 2>/dev/null; (exec 2>&9 9>&-; exec "$0" --norc --noprofile "$1"); exit $?';

export function noIsolationCommandLine(plan: CommandPlan): SpawnSpec {
  const setpriv =
    plan.tools.setpriv === undefined
      ? []
      : [plan.tools.setpriv, '--pdeathsig', 'KILL', '--no-new-privs', '--'];
  const argv = [
    ...setpriv,
    ...limitArgs(plan),
    plan.tools.sh,
    '-c',
    NO_ISOLATION_PARENT,
    plan.tools.bash,
    plan.scriptPath,
  ];
  return specOf(argv, { cwd: plan.workdir, env: plan.env, runAs: plan.runAs, extraFds: ['marker'] });
}

/** The command line that runs one command at the plan's isolation level. */
export function commandLine(plan: CommandPlan): SpawnSpec {
  switch (plan.level) {
    case 'bwrap':
      return bwrapCommandLine(plan);
    case 'util-linux':
      return utilLinuxCommandLine(plan);
    case 'none':
      return noIsolationCommandLine(plan);
  }
}
