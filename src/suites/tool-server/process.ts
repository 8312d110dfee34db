import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { type Survivor, spawnContained } from '../../harness/containment/index.js';
import { createHeadTailCapture, headAndTail } from '../../harness/head-tail.js';
import { waitAtMost } from '../../harness/wait-at-most.js';

/** A server process the suite started: `sh -c CMD` in its own process group, contained. */
export interface ServerProcess {
  readonly child: ChildProcessWithoutNullStreams;
  /** The first and the last 4 KiB of stderr (a note marks what was left out), for messages. */
  stderrTail(): string;
  /** Undefined while the process runs; how it ended once it has. */
  exit(): { code: number | null; signal: NodeJS.Signals | null } | undefined;
  /** Resolves when the process has exited. */
  readonly exited: Promise<void>;
  /**
   * SIGTERM to the group, SIGKILL after a short grace, then everything the server started
   * is killed (setsid escapees too); resolves once the process is gone.
   */
  kill(): Promise<void>;
  /** After kill(): the processes the server left running outside its group (killed by the harness). */
  survivors(): readonly Survivor[];
}

const STDERR_END_BYTES = 4096;
const KILL_GRACE_MS = 1000;

/**
 * Spawn a target command as the target contract in the README says (sh -c, own process group) inside the
 * harness's containment, with every pipe open. The caller owns the process and must
 * kill() it; kill() is idempotent.
 */
export function spawnServer(command: string, env: NodeJS.ProcessEnv = process.env): ServerProcess {
  const contained = spawnContained(command, { env, stdio: ['pipe', 'pipe', 'pipe'] });
  const child = contained.child as ChildProcessWithoutNullStreams;
  const stderr = createHeadTailCapture(STDERR_END_BYTES, STDERR_END_BYTES);
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
  child.stdin.on('error', () => {
    // the server may exit without reading its stdin; the exit is reported elsewhere
  });
  let ended: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  const exited = new Promise<void>((resolve) => {
    child.on('exit', (code, signal) => {
      ended = { code, signal };
      resolve();
    });
    child.on('error', () => {
      ended ??= { code: null, signal: null };
      resolve();
    });
  });
  let killing: Promise<void> | undefined;
  let survivors: readonly Survivor[] = [];
  return {
    child,
    stderrTail: () => stderr.text(),
    exit: () => ended,
    exited,
    survivors: () => survivors,
    kill() {
      killing ??= (async () => {
        contained.signalGroup('SIGTERM');
        await waitAtMost(exited, KILL_GRACE_MS);
        // Whatever the command left in its group goes too, even when sh itself has exited,
        // and so does what escaped the group.
        survivors = await contained.close();
        await waitAtMost(exited, KILL_GRACE_MS);
        child.stdout.destroy();
        child.stderr.destroy();
        child.stdin.destroy();
      })();
      return killing;
    },
  };
}

/** "exited with code 1 (stderr: ...)" for messages. */
export function describeExit(proc: ServerProcess): string {
  const e = proc.exit();
  if (e === undefined) return 'is still running';
  const how = e.signal !== null ? `was killed by ${e.signal}` : `exited with code ${e.code}`;
  const stderr = headAndTail(proc.stderrTail().trim(), 400, 400);
  return stderr === '' ? how : `${how} (stderr: ${stderr})`;
}
