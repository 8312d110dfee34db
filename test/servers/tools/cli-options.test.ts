import { readFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { describe, expect, test } from 'vitest';
import type { CliContext } from '../../../src/cli/context.js';
import { buildProgram, main } from '../../../src/cli/main.js';
import { type ServeToolsOptions, serveToolsOptionsOf } from '../../../src/cli/serve-tools.js';
import { UsageError } from '../../../src/harness/errors.js';

describe('serve tools options (spec "Tool server, SSE transport": reference server configuration)', () => {
  test('defaults: transport sse, host 127.0.0.1, port 8000, keep-alive 15 s', () => {
    expect(serveToolsOptionsOf({}, {})).toEqual({
      transport: 'sse',
      host: '127.0.0.1',
      path: '/mcp',
      port: 8000,
      keepAliveMs: 15_000,
    });
  });

  test('MCP_TRANSPORT, MCP_HOST and MCP_PORT set them when no flag is given', () => {
    expect(
      serveToolsOptionsOf({}, { MCP_TRANSPORT: 'stdio', MCP_HOST: '0.0.0.0', MCP_PORT: '9123' }),
    ).toMatchObject({
      transport: 'stdio',
      host: '0.0.0.0',
      port: 9123,
    });
  });

  test('a flag beats the environment; an empty variable counts as unset', () => {
    expect(
      serveToolsOptionsOf(
        { transport: 'sse', host: '::1', port: '0', keepAliveMs: '0' },
        { MCP_TRANSPORT: 'stdio', MCP_HOST: 'x', MCP_PORT: '1' },
      ),
    ).toEqual({ transport: 'sse', host: '::1', path: '/mcp', port: 0, keepAliveMs: 0 });
    expect(serveToolsOptionsOf({ transport: 'http', path: '/v1/mcp' }, {})).toMatchObject({
      transport: 'http',
      path: '/v1/mcp',
    });
    expect(serveToolsOptionsOf({}, { MCP_TRANSPORT: '', MCP_PORT: '' })).toMatchObject({
      transport: 'sse',
      port: 8000,
    });
  });

  test('a bad value is a usage error naming the flag or variable', () => {
    expect(() => serveToolsOptionsOf({ transport: 'websocket' }, {})).toThrow(UsageError);
    expect(() => serveToolsOptionsOf({ transport: 'http', path: 'mcp' }, {})).toThrow(/--path/);
    expect(() => serveToolsOptionsOf({}, { MCP_TRANSPORT: 'ws' })).toThrow(/MCP_TRANSPORT/);
    expect(() => serveToolsOptionsOf({}, { MCP_PORT: '70000' })).toThrow(/MCP_PORT/);
    expect(() => serveToolsOptionsOf({ keepAliveMs: '-1' }, {})).toThrow(/--keep-alive-ms/);
  });
});

describe('`wirecheck serve tools` wiring', () => {
  function context(serveTools: (o: ServeToolsOptions) => Promise<void>, env: NodeJS.ProcessEnv = {}) {
    let err = '';
    const ctx: Partial<CliContext> = {
      stdout: { write: () => true },
      stderr: {
        write: (s: string) => {
          err += s;
          return true;
        },
      },
      stdin: Readable.from([]),
      env,
      deps: { serveTools: (options) => serveTools(options) },
      onShutdown: () => ({ signal: new AbortController().signal, dispose: () => {} }),
    };
    return { ctx, err: () => err };
  }

  test('passes the resolved options to the server and exits 0 when it stops', async () => {
    const seen: ServeToolsOptions[] = [];
    const { ctx } = context(
      async (o) => {
        seen.push(o);
      },
      { MCP_PORT: '4567' },
    );
    expect(await main(['node', 'wirecheck', 'serve', 'tools', '--keep-alive-ms', '250'], ctx)).toBe(0);
    expect(seen).toEqual([
      { transport: 'sse', host: '127.0.0.1', path: '/mcp', port: 4567, keepAliveMs: 250 },
    ]);
  });

  test('a server that cannot start is WC_SERVE_FAILED, exit 2', async () => {
    const { ctx, err } = context(async () => {
      throw new Error('listen EADDRINUSE: address already in use 127.0.0.1:8000');
    });
    expect(await main(['node', 'wirecheck', 'serve', 'tools'], ctx)).toBe(2);
    expect(err()).toContain('WC_SERVE_FAILED');
    expect(err()).toContain('EADDRINUSE');
  });
});

describe('docs/cli.md', () => {
  test('documents `serve tools` and every one of its options', async () => {
    const doc = await readFile(new URL('../../../docs/cli.md', import.meta.url), 'utf8');
    const ignore = () => {};
    const program = buildProgram(
      {
        stdout: { write: ignore },
        stderr: { write: ignore },
        stdin: Readable.from([]),
        env: {},
        deps: { serveTools: async () => {} },
        onShutdown: () => ({ signal: new AbortController().signal, dispose: ignore }),
      },
      ignore,
    );
    const tools = program.commands
      .find((c) => c.name() === 'serve')
      ?.commands.find((c) => c.name() === 'tools');
    expect(tools).toBeDefined();
    expect(doc).toContain('## `wirecheck serve tools`');
    const section = doc.slice(doc.indexOf('## `wirecheck serve tools`'));
    const body = section.slice(0, section.indexOf('\n## ', 5));
    const missing = (tools?.options ?? [])
      .map((o) => o.long ?? '')
      .filter((long) => !new RegExp(`\`${long}[ \`]`).test(body));
    expect(missing).toEqual([]);
    for (const variable of ['MCP_TRANSPORT', 'MCP_HOST', 'MCP_PORT']) expect(body).toContain(variable);
  });
});
