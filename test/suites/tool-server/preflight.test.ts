import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { TargetUnavailable } from '../../../src/harness/check.js';
import { runSuite } from '../../../src/harness/run-suite.js';
import { referenceToolServerCommand } from '../../../src/suites/tool-server/index.js';
import { streamableHttpHint } from '../../../src/suites/tool-server/preflight.js';
import { startSseServer } from '../../clients/tools/sse-server.js';
import {
  freePort,
  NODE,
  quickSuite,
  runAgainst,
  serverScript,
  sseTarget,
  statusById,
  stdioTarget,
  testServer,
} from './helpers.js';

async function unavailable(
  target: Parameters<
    typeof runSuite<typeof quickSuite extends never ? never : Parameters<typeof quickSuite.open>[0], unknown>
  >[1],
): Promise<string> {
  try {
    await runSuite(quickSuite, target, { seed: 1, runs: 1 });
  } catch (e) {
    if (e instanceof TargetUnavailable) return e.message;
    throw e;
  }
  throw new Error('the target was not reported unavailable');
}

// Preflight (issue "Target preflight"): a target that cannot be tested at all is one
// TargetUnavailable (exit 2) saying what was run and what was seen, never failed checks.
describe('a tool server that cannot be tested is unavailable, with what was seen', () => {
  test('a command that echoes its input (cat) is named as such', async () => {
    const message = await unavailable(stdioTarget('cat'));
    expect(message).toContain('"cat"');
    expect(message).toMatch(/echoed the request back: it looks like `cat`, not a tool server/);
  }, 30_000);

  test('an SSE server whose POST of initialize is refused is named for the refusal, not for what its stream carried', async () => {
    const server = await startSseServer({ postStatus: 404 });
    try {
      const message = await unavailable({ kind: 'sse', url: server.url });
      expect(message).toMatch(/initialize got no answer: the POST was not accepted \(HTTP 404/);
      expect(message).not.toMatch(/newline-delimited JSON-RPC/);
    } finally {
      await server.close();
    }
  }, 30_000);

  test('a command that floods stdout with lines that are not JSON (yes) is stopped early', async () => {
    const t0 = performance.now();
    const message = await unavailable(stdioTarget('yes wirecheck'));
    expect(message).toMatch(/no JSON-RPC message, [\d,]+ not JSON/);
    expect(message).toContain('"wirecheck"');
    expect(performance.now() - t0).toBeLessThan(5_000);
  }, 30_000);

  test('a command that exits at once shows its exit status and the first lines of its stderr', async () => {
    const message = await unavailable(
      stdioTarget(`${NODE} -e "console.error('boom: no config'); process.exit(3)"`),
    );
    expect(message).toMatch(/exited with code 3/);
    expect(message).toContain('boom: no config');
  }, 30_000);

  test('a command that never answers is unavailable after the reply budget, naming --start-timeout', async () => {
    const message = await unavailable(stdioTarget('sleep 30'));
    expect(message).toMatch(/did not answer initialize within 6500 ms \(nothing arrived on stdout\)/);
    expect(message).toContain('can be given more time with --start-timeout SECONDS');
  }, 30_000);

  test('--start: a URL that does not answer within --start-timeout is unavailable, naming the option', async () => {
    const port = await freePort();
    const message = await unavailable({
      kind: 'sse',
      url: `http://127.0.0.1:${port}/sse`,
      start: 'sleep 30',
      startTimeoutMs: 1000,
    });
    expect(message).toMatch(/did not answer within 1000 ms of the --start command/);
    expect(message).toContain('--start-timeout SECONDS');
  }, 30_000);

  test('a server that takes 8 s to start is tested when --start-timeout allows for it', async () => {
    const slow = `sleep 8; exec ${referenceToolServerCommand('stdio')}`;
    expect(await unavailable(stdioTarget(slow))).toMatch(/did not answer initialize within 6500 ms/);
    const result = await runSuite(
      quickSuite,
      { ...stdioTarget(slow), startTimeoutMs: 15_000 },
      { seed: 1, runs: 1, only: ['tool-server.initialize.'] },
    );
    expect(result.summary.passed).toBeGreaterThan(0);
    expect(result.summary.failed).toBe(0);
  }, 90_000);

  test('an SSE URL answering 404 gives its status, content type and body', async () => {
    const target = await sseTarget(
      (port) => `${serverScript('conforming')} --transport sse --port ${port}`,
      '/nope',
    );
    const message = await unavailable(target);
    expect(message).toMatch(/answered HTTP 404/);
    expect(message).toContain('not found');
  }, 30_000);

  test('--sse at a Streamable HTTP endpoint (400 without a session id) is told to use --http', async () => {
    const port = await freePort();
    const message = await unavailable({
      kind: 'sse',
      url: `http://127.0.0.1:${port}/mcp`,
      start: referenceToolServerCommand('http', port),
    });
    expect(message).toMatch(
      /answered HTTP 400 application\/json, .*mcp-session-id header is required.*: is this a Streamable HTTP server \(then use --http with its URL\)\?/,
    );
  }, 30_000);

  test('which refusals of the GET read as a Streamable HTTP endpoint', () => {
    const hint = ': is this a Streamable HTTP server (then use --http with its URL)?';
    expect(streamableHttpHint(405, '')).toBe(hint);
    expect(
      streamableHttpHint(400, '{"jsonrpc": "2.0", "id": null, "error": {"code": -32000, "message": "Bad Re'),
    ).toBe(hint);
    expect(streamableHttpHint(400, 'Bad Request: Missing session ID')).toBe(hint);
    expect(streamableHttpHint(406, 'the Mcp-Session-Id header is required')).toBe(hint);
    // An HTTP+SSE server's POST path asks for its sessionId query parameter: not a Streamable HTTP server.
    expect(streamableHttpHint(400, 'session_id is required')).toBe('');
    expect(streamableHttpHint(400, 'Missing sessionId parameter')).toBe('');
    expect(streamableHttpHint(404, 'not found')).toBe('');
    // A refusal for want of credentials is that, whatever its body (a server may speak JSON-RPC in it).
    expect(streamableHttpHint(401, '{"jsonrpc":"2.0","error":{"code":-32001}}')).toBe('');
    expect(streamableHttpHint(500, '{"jsonrpc":"2.0"}')).toBe('');
  });

  test('an SSE stream served as text/plain is not an event stream', async () => {
    const message = await unavailable(await testServer('not-event-stream', 'sse'));
    expect(message).toMatch(/answered HTTP 200 text\/plain, not 200 text\/event-stream/);
  }, 30_000);

  test('a server answering in the POST body is told to look like Streamable HTTP', async () => {
    const message = await unavailable(await testServer('reply-in-body', 'sse'));
    expect(message).toMatch(/in the POST response body/);
  }, 30_000);
});

describe('a server that goes away mid-run', () => {
  test('fails the check that saw it go, and the checks after it are not run, with the cause once', async () => {
    const result = await runAgainst(await testServer('exit-mid-run', 'sse'), {}, quickSuite);
    const gone = result.checks.filter((c) => c.targetGone === true);
    expect(gone).toHaveLength(1);
    expect(gone[0]!.message).toMatch(/stopped answering/);
    const after = result.checks.slice(result.checks.indexOf(gone[0]!) + 1);
    expect(after.length).toBeGreaterThan(0);
    expect(after.every((c) => c.status === 'skip' && c.skipKind === 'not-run')).toBe(true);
  }, 120_000);
});

describe('--call-tools: no tool is called unless allowed', () => {
  async function calledTools(transport: 'stdio' | 'sse', callTools?: 'none' | readonly string[]) {
    const dir = await mkdtemp(join(tmpdir(), 'wirecheck-call-log-'));
    const log = join(dir, 'calls.txt');
    process.env.WIRECHECK_TEST_CALL_LOG = log;
    try {
      const base = await testServer('conforming', transport);
      const { callTools: _all, ...rest } = base;
      const target = callTools === undefined ? rest : { ...rest, callTools };
      const result = await runAgainst(target, {}, quickSuite);
      const calls = await readFile(log, 'utf8').catch(() => '');
      return { result, calls: calls.split('\n').filter((l) => l !== '') };
    } finally {
      delete process.env.WIRECHECK_TEST_CALL_LOG;
      await rm(dir, { recursive: true, force: true });
    }
  }

  test('by default a server that is neither the reference nor a mock, with no read-only tools, gets no call', async () => {
    const { result, calls } = await calledTools('stdio');
    expect(calls).toEqual([]);
    const status = statusById(result);
    expect(status['tool-server.tools.call-result-shape']).toBe('skip');
    const skip = result.checks.find((c) => c.id === 'tool-server.tools.generated-arguments')!;
    expect(skip.message).toMatch(/tools not called .*echo, add, diagnostics.*--call-tools all/);
    expect(result.checks.filter((c) => c.status === 'fail')).toEqual([]);
  }, 120_000);

  test('over SSE too (the session model, routing and in-flight checks call ping instead)', async () => {
    const { calls } = await calledTools('sse', 'none');
    expect(calls).toEqual([]);
  }, 180_000);

  test('--call-tools NAME calls that tool only', async () => {
    const { calls } = await calledTools('stdio', ['echo']);
    expect(calls.length).toBeGreaterThan(0);
    expect(new Set(calls)).toEqual(new Set(['echo']));
  }, 120_000);
});
