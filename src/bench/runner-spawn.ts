import { type SpawnOptions, spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import type { SpawnSpec } from '../runner/command-line.js';
import { exitCodeOf } from '../runner/spawn-command.js';

/** A bare spawn that never ends would hang the bench: it is killed and counts as a failure. */
const BARE_TIMEOUT_MS = 30_000;

/**
 * Starts a program, reads and discards whatever it prints, writes `script` into its
 * `script-in` fds (and the seccomp filter into `seccomp-in`) and resolves with its exit code (128+n for signal n) once it exited and
 * its pipes closed. This is the least a caller can do to run a command and wait for it.
 */
function spawnToClose(
  file: string,
  args: readonly string[],
  options: SpawnOptions,
  extraFds: SpawnSpec['extraFds'] = [],
  script = '',
  seccomp?: Uint8Array,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, [...args], {
      ...options,
      timeout: BARE_TIMEOUT_MS,
      stdio: ['ignore', 'pipe', 'pipe', ...extraFds.map((kind) => (kind === 'marker' ? 'ignore' : 'pipe'))],
    });
    child.once('error', reject);
    child.once('close', (code, signal) => resolve(exitCodeOf(code, signal)));
    child.stdio.forEach((stream, fd) => {
      if (stream === null || stream === undefined) return;
      stream.on('error', () => {});
      if (fd >= 3 && extraFds[fd - 3] === 'script-in') (stream as Writable).end(script);
      else if (fd >= 3 && extraFds[fd - 3] === 'seccomp-in') (stream as Writable).end(seccomp);
      // A pipe with unread data never closes, and neither does the child.
      else (stream as Readable).resume();
    });
  });
}

/** The baseline: `spawn('bash', ['-c', 'true'])`, detached (own group, as a careful runner does) or not. */
export function spawnBashTrue(detached: boolean): Promise<number> {
  return spawnToClose('bash', ['-c', 'true'], { detached });
}

/** The runner's own command line for one command, spawned the way the runner spawns it, and nothing more. */
export function spawnCommandLine(spec: SpawnSpec, script: string): Promise<number> {
  return spawnToClose(
    spec.file,
    spec.args,
    {
      cwd: spec.cwd,
      env: { ...spec.env },
      detached: true,
      ...(spec.runAs === null ? {} : { uid: spec.runAs.uid, gid: spec.runAs.gid }),
    },
    spec.extraFds,
    script,
    spec.seccomp,
  );
}
