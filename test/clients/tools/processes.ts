import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { connect } from 'node:net';
import { join, resolve } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { portForServerStart } from '../../../src/harness/server-port.js';

export const ROOT = resolve(import.meta.dirname, '../../..');
export const FIXTURES = join(import.meta.dirname, 'fixtures');
export const EVERYTHING = join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

export interface Started {
  readonly child: ChildProcessByStdio<Writable, Readable, Readable>;
  /** The first line the process writes on stdout. */
  firstLine(): Promise<string>;
  stderr(): string;
  /** SIGKILL to its process group; resolves once it exited. */
  kill(): Promise<void>;
}

/** `node ARGS` in its own process group (so that kill() reaches all it started). */
export function startNode(args: string[], env: Record<string, string> = {}): Started {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let err = '';
  child.stderr.on('data', (c: Buffer) => {
    err += c.toString('utf8');
  });
  let out = '';
  const firstLine = new Promise<string>((resolveLine, reject) => {
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString('utf8');
      const nl = out.indexOf('\n');
      if (nl >= 0) resolveLine(out.slice(0, nl));
    });
    child.once('exit', (code) =>
      reject(new Error(`exited (${code}) before a line on stdout; stderr: ${err}`)),
    );
  });
  firstLine.catch(() => {});
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return {
    child,
    firstLine: () => firstLine,
    stderr: () => err,
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          // already gone
        }
        await exited;
      }
    },
  };
}

/** A free port for a server started on it a moment later, where no port-0 listener is put meanwhile. */
export function freePort(): Promise<number> {
  return portForServerStart();
}

/** Poll until something accepts TCP connections on the port (bounded). */
export async function waitForPort(port: number, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const ok = await new Promise<boolean>((r) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        r(true);
      });
      socket.once('error', () => r(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on port ${port} after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `node bin/wirecheck.js ARGS` with stdin, bounded in time, killed by its group on expiry. */
export function runCli(
  args: string[],
  options: { stdin?: string; env?: Record<string, string> } = {},
): Promise<CliRun> {
  const started = startNode([join(ROOT, 'bin/wirecheck.js'), ...args], options.env ?? {});
  const { child } = started;
  let stdout = '';
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString('utf8');
  });
  child.stdin.on('error', () => {});
  child.stdin.end(options.stdin ?? '');
  return new Promise((resolveRun) => {
    const timer = setTimeout(() => void started.kill(), 20_000);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolveRun({ code, stdout, stderr: started.stderr() });
    });
  });
}

/** The JSON a CLI run printed; a run that printed none fails with what it wrote on stderr. */
export function printedJson(run: CliRun): unknown {
  try {
    return JSON.parse(run.stdout);
  } catch {
    throw new Error(
      `expected JSON on stdout, got ${JSON.stringify(run.stdout)} (exit ${run.code}); stderr: ${run.stderr}`,
    );
  }
}
