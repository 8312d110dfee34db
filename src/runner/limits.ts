/** The resource limits put on every command (with prlimit), and the private /tmp size. */
export interface ResourceLimits {
  /** RLIMIT_NPROC: processes of the run uid (counted system-wide for that uid). */
  readonly processes: number;
  /** RLIMIT_NOFILE: open files per process. */
  readonly openFiles: number;
  /** RLIMIT_FSIZE: the largest file a command may write (a bigger write gets SIGXFSZ, exit 153). */
  readonly fileSizeBytes: number;
}

/** Core dumps are always off (RLIMIT_CORE 0): a crash must not leave a dump in the workdir. */
export const DEFAULT_LIMITS: ResourceLimits = {
  processes: 512,
  openFiles: 1024,
  fileSizeBytes: 128 * 1024 * 1024,
};

/** Size of the command's private /tmp (a tmpfs; writes past it fail with ENOSPC). */
export const PRIVATE_TMP_BYTES = 64 * 1024 * 1024;
/** Size of the empty tmpfs put over hidden host directories. */
export const MASK_TMPFS_BYTES = 1024 * 1024;
/** Size of the command's /dev/shm (a tmpfs, like /tmp). */
export const DEV_SHM_BYTES = 16 * 1024 * 1024;
/** util-linux: the tmpfs the sandbox's root is built on (directories and mount points only) and its /dev. */
export const SANDBOX_ROOT_BYTES = 1024 * 1024;

/** How long output may keep arriving after the shell exits before the pipes are cut. */
export const DRAIN_MS = 500;

/** A soft limit can only be set up to the hard limit the runner itself has. */
export function clampLimits(
  wanted: ResourceLimits,
  hard: Partial<Record<keyof ResourceLimits, number>>,
): ResourceLimits {
  const clamp = (key: keyof ResourceLimits): number =>
    Math.min(wanted[key], hard[key] ?? Number.POSITIVE_INFINITY);
  return {
    processes: clamp('processes'),
    openFiles: clamp('openFiles'),
    fileSizeBytes: clamp('fileSizeBytes'),
  };
}

/**
 * The hard limits from the text of /proc/self/limits ("Max processes  4096  4096  processes");
 * "unlimited" or an unreadable line leaves the limit out.
 */
export function parseHardLimits(procLimits: string): Partial<Record<keyof ResourceLimits, number>> {
  const rows: Record<string, keyof ResourceLimits> = {
    'Max processes': 'processes',
    'Max open files': 'openFiles',
    'Max file size': 'fileSizeBytes',
  };
  const hard: Partial<Record<keyof ResourceLimits, number>> = {};
  for (const line of procLimits.split('\n')) {
    for (const [label, key] of Object.entries(rows)) {
      if (!line.startsWith(label)) continue;
      const fields = line.slice(label.length).trim().split(/\s+/);
      const value = Number(fields[1]);
      if (Number.isSafeInteger(value)) hard[key] = value;
    }
  }
  return hard;
}
