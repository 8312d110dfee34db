import { spawn } from 'node:child_process';

export interface CommandRun {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  durationMs: number;
  /** Set when the command could not be started at all. */
  spawnError?: Error;
}

export interface CommandOptions {
  /** Full environment of the command (the caller merges process.env where it wants it). */
  env: Record<string, string | undefined>;
  stdin?: string;
  timeoutMs: number;
  /** Between the terminate and the kill signal on timeout. */
  graceMs?: number;
  /** Bytes kept of each output stream; the rest is drained and dropped. */
  maxOutputBytes?: number;
  cwd?: string;
  signal?: AbortSignal;
}

/**
 * Run a target command as TARGETS.md says: `sh -c CMD`, in its own process group, stdin
 * written then closed, stdout/stderr captured. On timeout (or abort) the whole group gets
 * SIGTERM, then SIGKILL after the grace; whatever the command left behind in its group is
 * killed once it exits, so no check leaks processes.
 */
export function runCommand(command: string, options: CommandOptions): Promise<CommandRun> {
  const started = performance.now();
  const max = options.maxOutputBytes ?? 16 * 1024 * 1024;
  return new Promise((resolve) => {
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn('sh', ['-c', command], {
        detached: true,
        env: Object.fromEntries(
          Object.entries(options.env).filter(([, v]) => v !== undefined),
        ) as NodeJS.ProcessEnv,
        stdio: ['pipe', 'pipe', 'pipe'],
        cwd: options.cwd,
      });
    } catch (e) {
      resolve({
        exitCode: null,
        signal: null,
        stdout: '',
        stderr: '',
        timedOut: false,
        durationMs: performance.now() - started,
        spawnError: e as Error,
      });
      return;
    }
    const out = collector(max);
    const err = collector(max);
    child.stdout?.on('data', out.push);
    child.stderr?.on('data', err.push);
    let timedOut = false;
    let settled = false;
    const killGroup = (sig: NodeJS.Signals) => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, sig);
      } catch {
        // group already gone
      }
    };
    let graceTimer: NodeJS.Timeout | undefined;
    const stop = () => {
      killGroup('SIGTERM');
      graceTimer = setTimeout(() => killGroup('SIGKILL'), options.graceMs ?? 2000);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, options.timeoutMs);
    const onAbort = () => stop();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const finish = (exitCode: number | null, signal: NodeJS.Signals | null, spawnError?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(graceTimer);
      options.signal?.removeEventListener('abort', onAbort);
      killGroup('SIGKILL');
      const run: CommandRun = {
        exitCode,
        signal,
        stdout: out.text(),
        stderr: err.text(),
        timedOut,
        durationMs: performance.now() - started,
      };
      if (spawnError) run.spawnError = spawnError;
      resolve(run);
    };
    child.on('error', (e) => finish(null, null, e));
    // 'close' waits for the pipes; a grandchild holding them open is killed with the group on exit.
    child.on('exit', () => {
      killGroup('SIGKILL');
    });
    child.on('close', (code, signal) => finish(code, signal));
    child.stdin?.on('error', () => {
      // the command may exit without reading its stdin
    });
    child.stdin?.end(options.stdin ?? '');
  });
}

function collector(max: number) {
  const chunks: Buffer[] = [];
  let kept = 0;
  return {
    push: (chunk: Buffer) => {
      if (kept >= max) return;
      const part = kept + chunk.length > max ? chunk.subarray(0, max - kept) : chunk;
      chunks.push(part);
      kept += part.length;
    },
    text: () => Buffer.concat(chunks).toString('utf8'),
  };
}
