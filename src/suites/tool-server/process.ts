import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';

/** A server process the suite started: `sh -c CMD` in its own process group. */
export interface ServerProcess {
  readonly child: ChildProcessWithoutNullStreams;
  /** The last few KiB of stderr, for messages. */
  stderrTail(): string;
  /** Undefined while the process runs; how it ended once it has. */
  exit(): { code: number | null; signal: NodeJS.Signals | null } | undefined;
  /** Resolves when the process has exited. */
  readonly exited: Promise<void>;
  /** SIGTERM to the group, SIGKILL after a short grace; resolves once the process is gone. */
  kill(): Promise<void>;
}

const STDERR_TAIL = 4096;
const KILL_GRACE_MS = 1000;

/**
 * Spawn a target command as TARGETS.md says (sh -c, own process group) with every pipe
 * open. The caller owns the process and must kill() it; kill() is idempotent.
 */
export function spawnServer(command: string, env: NodeJS.ProcessEnv = process.env): ServerProcess {
  const child = spawn('sh', ['-c', command], { detached: true, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-STDERR_TAIL);
  });
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
  const signalGroup = (sig: NodeJS.Signals) => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, sig);
    } catch {
      // the group is already gone
    }
  };
  let killing: Promise<void> | undefined;
  return {
    child,
    stderrTail: () => stderr,
    exit: () => ended,
    exited,
    kill() {
      killing ??= (async () => {
        signalGroup('SIGTERM');
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([exited, new Promise((r) => (timer = setTimeout(r, KILL_GRACE_MS)))]);
        clearTimeout(timer);
        // Whatever the command left in its group goes too, even when sh itself has exited.
        signalGroup('SIGKILL');
        await Promise.race([exited, new Promise((r) => setTimeout(r, KILL_GRACE_MS))]);
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
  const tail = proc.stderrTail().trim();
  return tail === '' ? how : `${how} (stderr: ${tail.slice(-600)})`;
}
