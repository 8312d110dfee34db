import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A compiled program of dist/bench. Built code runs its sibling; tests run this module
 * from src/ as TypeScript, which a plain `node` child cannot, so they use dist/ too
 * (vitest's global setup builds it).
 */
export function benchScript(name: string): string {
  const here = fileURLToPath(import.meta.url);
  const script = here.endsWith('.ts')
    ? join(dirname(here), '..', '..', 'dist', 'bench', name)
    : join(dirname(here), name);
  if (!existsSync(script)) throw new Error(`the bench program ${script} is missing: run npm run build`);
  return script;
}

/** A server or echo program running as a child process of the bench, in its own process group. */
export interface ChildServer {
  pid: number;
  /** The first line it printed (its address, for servers). */
  hello: string;
  child: ChildProcess;
  /** Ends its stdin, then kills its process group if it has not exited within 5 s. */
  close(): Promise<void>;
}

const START_TIMEOUT_MS = 30_000;
const CLOSE_GRACE_MS = 5_000;

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/**
 * Start `argv` and wait for its first line on stdout (a server's address); what follows
 * stays in stdout for the caller. With `waitForLine: false` it returns at once (a stdio
 * server, which prints nothing until asked).
 */
export async function startChild(
  argv: readonly string[],
  options: { waitForLine?: boolean } = {},
): Promise<ChildServer> {
  const [command, ...args] = argv;
  if (command === undefined) throw new Error('startChild needs a command');
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'], detached: true });
  const pid = child.pid;
  if (pid === undefined) {
    await new Promise((resolve) => child.once('error', resolve));
    throw new Error(`could not start ${argv.join(' ')}`);
  }
  const kill = () => {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  };
  const close = async () => {
    child.stdin?.end();
    const timer = setTimeout(kill, CLOSE_GRACE_MS);
    await exited(child);
    clearTimeout(timer);
    kill();
  };
  if (options.waitForLine === false) return { pid, hello: '', child, close };
  try {
    const hello = await new Promise<string>((resolve, reject) => {
      let text = '';
      const timer = setTimeout(
        () => reject(new Error(`${argv.join(' ')} printed no line within ${START_TIMEOUT_MS} ms`)),
        START_TIMEOUT_MS,
      );
      const onData = (chunk: Buffer) => {
        text += chunk.toString('utf8');
        const nl = text.indexOf('\n');
        if (nl < 0) return;
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        child.off('exit', onExit);
        // Whatever followed the first line is the caller's (put back for a later reader).
        const rest = text.slice(nl + 1);
        if (rest !== '') child.stdout?.unshift(Buffer.from(rest));
        child.stdout?.pause();
        resolve(text.slice(0, nl));
      };
      const onExit = (code: number | null) => {
        clearTimeout(timer);
        reject(new Error(`${argv.join(' ')} exited (code ${code}) before printing its first line`));
      };
      child.stdout?.on('data', onData);
      child.once('exit', onExit);
    });
    return { pid, hello, child, close };
  } catch (e) {
    kill();
    throw e;
  }
}
