import { type ChildProcess, spawn } from 'node:child_process';
import type { ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { shellQuote } from '../../src/harness/run-suite.js';

export { freePort } from '../suites/tool-server/helpers.js';

/** `node test/hostile/targets/<name>.mjs`, quoted for `sh -c`. */
export function targetCommand(name: string, ...args: string[]): string {
  const script = fileURLToPath(new URL(`./targets/${name}.mjs`, import.meta.url));
  return [process.execPath, script, ...args].map(shellQuote).join(' ');
}

export interface RunningTarget {
  readonly url: string;
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

/** Start an SSE hostile target on a free port; resolves once it listens. Stopped by its pid. */
export function startSseTarget(name: string, ...args: string[]): Promise<RunningTarget> {
  return startTarget('sse', name, args);
}

/** The same over Streamable HTTP (the URL is its endpoint, /mcp). */
export function startHttpTarget(name: string, ...args: string[]): Promise<RunningTarget> {
  return startTarget('http', name, args);
}

function startTarget(transport: 'sse' | 'http', name: string, args: string[]): Promise<RunningTarget> {
  const script = fileURLToPath(new URL(`./targets/${name}.mjs`, import.meta.url));
  const child = spawn(process.execPath, [script, '--transport', transport, '--port', '0', ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await gone;
  };
  return new Promise((resolve, reject) => {
    let err = '';
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`${name} did not listen within 10 s: ${err}`));
    }, 10_000);
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      err += chunk;
      const m = /listening on (\S+)/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1] as string, child, stop });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code} before listening: ${err}`));
    });
  });
}

/**
 * Write `piece` to a response again and again until the client goes away, respecting
 * back-pressure (the writer holds nothing). Resolves with the characters written.
 */
export function writeForever(res: ServerResponse, piece: string): Promise<number> {
  return new Promise((resolve) => {
    let written = 0;
    let open = true;
    res.on('close', () => {
      open = false;
      resolve(written);
    });
    const pump = () => {
      while (open) {
        written += piece.length;
        if (!res.write(piece)) {
          res.once('drain', pump);
          return;
        }
      }
    };
    pump();
  });
}
