import { fileURLToPath } from 'node:url';
import type { SuiteResult } from '../../../src/harness/results.js';
import { type RunOptions, runSuite, shellQuote } from '../../../src/harness/run-suite.js';
import { portForServerStart } from '../../../src/harness/server-port.js';
import {
  type CallToolsOption,
  createToolServerSuite,
  type ToolServerTarget,
} from '../../../src/suites/tool-server/index.js';

/** Seed of every suite run in these tests, so that they are reproducible. */
export const SEED = 20261121;

/** The suite with small property caps: these tests judge the checks, not the servers' breadth. */
export const testSuite = createToolServerSuite({ maxCalls: 12, modelRuns: 2, httpMs: 1500 });

export const NODE = shellQuote(process.execPath);

/** `node servers/<name>.mjs`. */
export function serverScript(name: string): string {
  return `${NODE} ${shellQuote(fileURLToPath(new URL(`./servers/${name}.mjs`, import.meta.url)))}`;
}

export function stdioTarget(command: string, callTools?: CallToolsOption): ToolServerTarget {
  return callTools === undefined ? { kind: 'stdio', command } : { kind: 'stdio', command, callTools };
}

/** A free port for a server started on it a moment later, where no port-0 listener is put meanwhile. */
export function freePort(): Promise<number> {
  return portForServerStart();
}

/** An SSE target started by `--start`, on a free port. */
export async function sseTarget(
  startFor: (port: number) => string,
  path = '/sse',
  callTools?: CallToolsOption,
): Promise<ToolServerTarget> {
  const port = await freePort();
  const target = { kind: 'sse' as const, url: `http://127.0.0.1:${port}${path}`, start: startFor(port) };
  return callTools === undefined ? target : { ...target, callTools };
}

/**
 * A Streamable HTTP test server (servers/<script>.mjs) started by `--start` on a free port,
 * serving `/mcp`; its tools are harmless (`--call-tools all`).
 */
export async function httpTarget(
  script: string,
  protocol?: ToolServerTarget['protocol'],
): Promise<ToolServerTarget> {
  const port = await freePort();
  return {
    kind: 'http',
    url: `http://127.0.0.1:${port}/mcp`,
    start: `${serverScript(script)} --port ${port}`,
    callTools: 'all',
    ...(protocol === undefined ? {} : { protocol }),
  };
}

/**
 * A test server (servers/<name>.mjs) in either transport. Its tools are harmless, so the
 * checks may call them all (`--call-tools all`, as a user would opt in).
 */
export async function testServer(name: string, transport: 'stdio' | 'sse'): Promise<ToolServerTarget> {
  if (transport === 'stdio') return stdioTarget(`${serverScript(name)} --transport stdio`, 'all');
  return sseTarget((port) => `${serverScript(name)} --transport sse --port ${port}`, '/sse', 'all');
}

/**
 * The same with a short reply budget, for the test servers (which answer at once): a broken
 * server's unanswered requests then cost little. Real servers keep the default budget.
 */
export const quickSuite = createToolServerSuite({ maxCalls: 12, modelRuns: 2, httpMs: 1000, replyMs: 1500 });

export function runAgainst(
  target: ToolServerTarget,
  options: RunOptions = {},
  suite: typeof testSuite = testSuite,
): Promise<SuiteResult> {
  return runSuite(suite, target, { seed: SEED, runs: 10, ...options });
}

/** `id: status: message` for every check that did not pass, for readable assertion diffs. */
export function notPassed(result: SuiteResult): string[] {
  return result.checks
    .filter((c) => c.status === 'fail' || c.status === 'warn')
    .map((c) => `${c.id}: ${c.status}: ${c.message}`);
}

export { statusById } from '../../broken-verdicts.js';

/** `id -> status` of the checks that warned or failed. */
export function nonPassing(result: SuiteResult): Record<string, string> {
  return Object.fromEntries(
    result.checks.filter((c) => c.status === 'fail' || c.status === 'warn').map((c) => [c.id, c.status]),
  );
}
