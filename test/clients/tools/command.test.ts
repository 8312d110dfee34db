import { join } from 'node:path';
import { Readable } from 'node:stream';
import { Command } from 'commander';
import { afterEach, describe, expect, test } from 'vitest';
import type { CliContext } from '../../../src/cli/context.js';
import {
  addToolClientCommand,
  type RunToolClientCommand,
  type ToolClientFlags,
} from '../../../src/cli/tool-client.js';
import { resolveToolServerAddress, runToolClientCommand } from '../../../src/clients/tools/index.js';
import { FIXTURES, printedJson, runCli } from './processes.js';
import { type SseServer, type SseServerOptions, startSseServer } from './sse-server.js';
import { type ScriptedHttpServer, startScriptedHttpServer } from './streamable-http-server.js';

const servers: (SseServer | ScriptedHttpServer)[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function sse(options: SseServerOptions = {}): Promise<SseServer> {
  const s = await startSseServer(options);
  servers.push(s);
  return s;
}

const stdioServer = `node ${join(FIXTURES, 'sdk-stdio-server.mjs')}`;

function stdinOf(text: string) {
  let read = 0;
  return {
    readStdin: async () => {
      read++;
      return text;
    },
    reads: () => read,
  };
}

describe('tool-client target contract (TARGETS.md "tool-client")', () => {
  test('over stdio: `wirecheck tool-client` initializes, calls the tool named on stdin and prints the result JSON, exit 0', async () => {
    const run = await runCli(['tool-client'], {
      env: { WIRECHECK_TRANSPORT: 'stdio', WIRECHECK_SERVER_CMD: stdioServer },
      stdin: '{"tool": "echo", "arguments": {"text": "over stdio"}}',
    });
    expect(run.stderr).toBe('');
    expect(run.code, run.stderr).toBe(0);
    expect(printedJson(run)).toEqual({ content: [{ type: 'text', text: 'over stdio' }] });
  });

  test('over SSE: `wirecheck tool-client` with absent arguments prints the result, exit 0', async () => {
    const s = await sse();
    const run = await runCli(['tool-client'], {
      env: { WIRECHECK_TRANSPORT: 'sse', WIRECHECK_SERVER_URL: s.url },
      stdin: '{"tool": "echo"}',
    });
    expect(run.code, run.stderr).toBe(0);
    expect(printedJson(run)).toEqual({ content: [{ type: 'text', text: '(nothing)' }] });
    expect(s.posts.find((p) => (p as { method?: string }).method === 'tools/call')).toEqual({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'echo' },
    });
  });

  test('a stdio server printing a banner on stdout: exit non-zero with {"error":{"message"}} naming the line', async () => {
    const run = await runCli(['tool-client'], {
      env: {
        WIRECHECK_TRANSPORT: 'stdio',
        WIRECHECK_SERVER_CMD: `BANNER='Weather MCP server ready' ${stdioServer}`,
      },
      stdin: '{"tool": "echo", "arguments": {"text": "x"}}',
    });
    expect(run, JSON.stringify(run)).toMatchObject({ code: 1 });
    const printed = printedJson(run) as { error: { message: string } };
    expect(Object.keys(printed)).toEqual(['error']);
    expect(printed.error.message).toContain('line 1 is not JSON');
    expect(printed.error.message).toContain('Weather MCP server ready');
  });

  test('a tool result with isError true is printed as a result, exit 0', async () => {
    const s = await sse();
    const result = await runToolClientCommand({
      ...stdinOf('{"tool": "fail", "arguments": {}}'),
      env: { WIRECHECK_TRANSPORT: 'sse', WIRECHECK_SERVER_URL: s.url },
    });
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      content: [{ type: 'text', text: 'it failed' }],
      isError: true,
    });
  });

  test('a JSON-RPC error reply (unknown tool) is a protocol failure: exit 1 with the error message', async () => {
    const s = await sse();
    const result = await runToolClientCommand({
      ...stdinOf('{"tool": "nope"}'),
      env: { WIRECHECK_TRANSPORT: 'sse', WIRECHECK_SERVER_URL: s.url },
    });
    expect(result.exitCode).toBe(1);
    expect(JSON.parse(result.stdout)).toEqual({
      error: { message: 'tools/call: the server answered JSON-RPC error -32602: Unknown tool: nope' },
    });
  });

  test('a POST answered 404 is a transport failure: exit 1 naming the status', async () => {
    const s = await sse({ postStatus: 404 });
    const result = await runToolClientCommand({
      ...stdinOf('{"tool": "echo"}'),
      env: { WIRECHECK_TRANSPORT: 'sse', WIRECHECK_SERVER_URL: s.url },
    });
    expect(result.exitCode).toBe(1);
    expect((JSON.parse(result.stdout) as { error: { message: string } }).error.message).toContain('HTTP 404');
  });

  test('an unreachable SSE server is a transport failure: exit 1', async () => {
    const result = await runToolClientCommand({
      ...stdinOf('{"tool": "echo"}'),
      env: { WIRECHECK_TRANSPORT: 'sse', WIRECHECK_SERVER_URL: 'http://127.0.0.1:1/sse' },
    });
    expect(result.exitCode).toBe(1);
    expect((JSON.parse(result.stdout) as { error: { message: string } }).error.message).toContain(
      'GET failed',
    );
  });

  test.each([
    [
      'stdin that is not the call object',
      { WIRECHECK_TRANSPORT: 'sse', WIRECHECK_SERVER_URL: 'http://127.0.0.1:1/sse' },
      '{"name": "echo"}',
    ],
    ['no server at all', {}, '{"tool": "echo"}'],
    ['an unknown transport', { WIRECHECK_TRANSPORT: 'carrier-pigeon' }, '{"tool": "echo"}'],
    ['sse without a URL', { WIRECHECK_TRANSPORT: 'sse' }, '{"tool": "echo"}'],
  ])('bad usage (%s) exits 2 with {"error":{"message"}} and contacts nothing', async (_what, env, stdin) => {
    const result = await runToolClientCommand({ ...stdinOf(stdin), env });
    expect(result.exitCode).toBe(2);
    expect(JSON.parse(result.stdout)).toEqual({ error: { message: expect.any(String) } });
  });
});

describe('tool-client by hand', () => {
  test('--sse, --tool and --arguments override the environment and stdin, which is not read', async () => {
    const s = await sse();
    const stdin = stdinOf('{"tool": "never"}');
    const result = await runToolClientCommand({
      ...stdin,
      env: { WIRECHECK_TRANSPORT: 'stdio', WIRECHECK_SERVER_CMD: 'false' },
      flags: { sse: s.url, tool: 'echo', arguments: '{"text": "by hand"}' },
    });
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ content: [{ type: 'text', text: 'by hand' }] });
    expect(stdin.reads()).toBe(0);
  });

  test('--http speaks Streamable HTTP, and WIRECHECK_TRANSPORT=http takes WIRECHECK_SERVER_URL', async () => {
    const s = await startScriptedHttpServer({ answer: 'sse' });
    servers.push(s);
    const byFlag = await runToolClientCommand({
      ...stdinOf(''),
      env: {},
      flags: { http: s.url, tool: 'echo', arguments: '{"text": "over http"}' },
    });
    expect(byFlag.exitCode).toBe(0);
    expect(JSON.parse(byFlag.stdout)).toEqual({ content: [{ type: 'text', text: '{"text":"over http"}' }] });
    const byEnv = await runToolClientCommand({
      ...stdinOf('{"tool": "echo"}'),
      env: { WIRECHECK_TRANSPORT: 'http', WIRECHECK_SERVER_URL: s.url },
    });
    expect(byEnv.exitCode).toBe(0);
    expect(JSON.parse(byEnv.stdout)).toEqual({ content: [{ type: 'text', text: '{}' }] });
    expect(s.exchanges.filter((e) => e.method === 'DELETE')).toHaveLength(2);
    expect(resolveToolServerAddress({ sse: 'http://h/sse', http: 'http://h/mcp' }, {})).toBe(
      '--sse and --http exclude each other',
    );
    expect(resolveToolServerAddress({}, { WIRECHECK_TRANSPORT: 'http', WIRECHECK_SERVER_URL: 'x' })).toMatch(
      /WIRECHECK_SERVER_URL must be the http\(s\) URL of the server's MCP endpoint/,
    );
  });

  test('--header goes with every request to the server, a variable read from the environment; with stdio, or unset, it is a usage error', async () => {
    const s = await startScriptedHttpServer({ answer: 'json' });
    servers.push(s);
    const result = await runToolClientCommand({
      ...stdinOf(''),
      env: { MCP_TOKEN: 't0ken-1234' },
      // biome-ignore lint/suspicious/noTemplateCurlyInString: what the user types
      flags: { http: s.url, list: true, header: ['Authorization: Bearer ${MCP_TOKEN}', 'X-Tenant: acme'] },
    });
    expect(result.exitCode).toBe(0);
    expect(s.exchanges.length).toBeGreaterThan(1);
    for (const e of s.exchanges) {
      expect(e.headers.authorization).toBe('Bearer t0ken-1234');
      expect(e.headers['x-tenant']).toBe('acme');
    }
    for (const flags of [
      { stdio: 'x', list: true, header: ['X-A: 1'] },
      // biome-ignore lint/suspicious/noTemplateCurlyInString: what the user types
      { http: s.url, list: true, header: ['Authorization: Bearer ${NOT_SET_HERE}'] },
      { http: s.url, list: true, header: ['no colon'] },
    ]) {
      const refused = await runToolClientCommand({ ...stdinOf(''), env: {}, flags });
      expect(refused.exitCode).toBe(2);
      expect(refused.stderr).toMatch(/--header/);
    }
  });

  test('--list prints the tools/list result', async () => {
    const s = await sse();
    const result = await runToolClientCommand({ ...stdinOf(''), env: {}, flags: { sse: s.url, list: true } });
    expect(result.exitCode).toBe(0);
    expect((JSON.parse(result.stdout) as { tools: { name: string }[] }).tools.map((t) => t.name)).toEqual([
      'echo',
      'fail',
    ]);
  });

  test('--stdio and --sse together, --arguments that is not an object, --timeout-ms 0 are usage errors', async () => {
    for (const flags of [
      { stdio: 'x', sse: 'http://127.0.0.1:1/sse', list: true },
      { sse: 'http://127.0.0.1:1/sse', tool: 'echo', arguments: '[1]' },
      { sse: 'http://127.0.0.1:1/sse', list: true, timeoutMs: '0' },
    ]) {
      const result = await runToolClientCommand({ ...stdinOf(''), env: {}, flags });
      expect(result.exitCode).toBe(2);
    }
  });

  test('the target comes from WIRECHECK_TRANSPORT and WIRECHECK_SERVER_CMD / WIRECHECK_SERVER_URL; flags win', () => {
    expect(
      resolveToolServerAddress({}, { WIRECHECK_TRANSPORT: 'stdio', WIRECHECK_SERVER_CMD: 'srv' }),
    ).toEqual({
      transport: 'stdio',
      command: 'srv',
    });
    expect(
      resolveToolServerAddress({}, { WIRECHECK_TRANSPORT: 'sse', WIRECHECK_SERVER_URL: 'http://h:1/sse' }),
    ).toEqual({
      transport: 'sse',
      url: 'http://h:1/sse',
    });
    expect(
      resolveToolServerAddress(
        { stdio: 'mine' },
        { WIRECHECK_TRANSPORT: 'sse', WIRECHECK_SERVER_URL: 'http://h:1/sse' },
      ),
    ).toEqual({
      transport: 'stdio',
      command: 'mine',
    });
    expect(
      typeof resolveToolServerAddress(
        {},
        { WIRECHECK_TRANSPORT: 'sse', WIRECHECK_SERVER_URL: 'ftp://h/sse' },
      ),
    ).toBe('string');
  });

  test('`wirecheck tool-client` hands its flags and the environment over and finishes with the exit status', async () => {
    let seen: { flags: ToolClientFlags; env: NodeJS.ProcessEnv; stdin: string } | undefined;
    const run: RunToolClientCommand = async (input) => {
      seen = { flags: input.flags, env: input.env, stdin: await input.readStdin() };
      return { stdout: '{}\n', stderr: '', exitCode: 0 };
    };
    const codes: number[] = [];
    const out: string[] = [];
    const ctx: CliContext = {
      stdout: { write: (s: string) => out.push(s) },
      stderr: { write: () => true },
      stdin: Readable.from([Buffer.from('{"tool":"x"}')]),
      env: { WIRECHECK_TRANSPORT: 'stdio' },
      deps: {},
      onShutdown: () => ({ signal: new AbortController().signal, dispose: () => {} }),
    };
    const root = new Command('wirecheck').exitOverride();
    addToolClientCommand(root, ctx, run, (code) => codes.push(code));
    await root.parseAsync(['tool-client', '--stdio', 'srv', '--list', '--timeout-ms', '500'], {
      from: 'user',
    });
    expect(seen).toEqual({
      flags: { stdio: 'srv', list: true, timeoutMs: '500' },
      env: { WIRECHECK_TRANSPORT: 'stdio' },
      stdin: '{"tool":"x"}',
    });
    expect(out).toEqual(['{}\n']);
    expect(codes).toEqual([0]);
  });

  test('the library call fits the CLI hook as it is (main.ts passes runToolClientCommand in)', () => {
    const wired: RunToolClientCommand = runToolClientCommand;
    expect(typeof wired).toBe('function');
  });
});
