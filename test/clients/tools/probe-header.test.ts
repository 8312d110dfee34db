import { type ChildProcess, spawn } from 'node:child_process';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { afterEach, describe, expect, test } from 'vitest';
import type { CliContext } from '../../../src/cli/context.js';
import { addProbeCommand } from '../../../src/cli/probe.js';
import {
  formatProbeReport,
  probeStreamableHttpServer,
  probeToolServer,
  runProbeCommand,
} from '../../../src/clients/tools/index.js';
import { startSseServer } from './sse-server.js';

// The tool-server suite's conforming server behind a bearer token: every request without
// `Authorization: Bearer t0ken-secret-123` is answered 401 with a body echoing the token.
const BEARER_AUTH = fileURLToPath(
  new URL('../../suites/tool-server/servers/bearer-auth.mjs', import.meta.url),
);
const TOKEN = 't0ken-secret-123';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** bearer-auth.mjs on port 0 over `transport`; resolves with its URL once it listens. */
async function bearerAuthServer(transport: 'sse' | 'http'): Promise<string> {
  const child: ChildProcess = spawn(
    process.execPath,
    [BEARER_AUTH, '--transport', transport, '--port', '0'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  cleanups.push(() => {
    if (child.exitCode === null && child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
  });
  let printed = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL printed within 10 s: ${printed}`)), 10_000);
    const onData = (chunk: Buffer) => {
      printed += chunk.toString();
      const url = /http:\/\/127\.0\.0\.1:\d+\/(sse|mcp)/.exec(printed)?.[0];
      if (url !== undefined) {
        clearTimeout(timer);
        resolve(url);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
  });
}

function program(env: Record<string, string> = {}) {
  const out: string[] = [];
  const codes: number[] = [];
  const ctx: CliContext = {
    stdout: { write: (s: string) => out.push(s) },
    stderr: { write: () => true },
    stdin: Readable.from(['']),
    env,
    deps: {},
    onShutdown: () => ({ signal: new AbortController().signal, dispose: () => {} }),
  };
  const root = new Command('wirecheck').exitOverride();
  addProbeCommand(root, ctx, runProbeCommand, (code) => codes.push(code));
  return { root, out, codes };
}

describe('the probe with --header (a tool server behind a bearer token)', () => {
  test('SSE: unhealthy (401) without the header; healthy with it on the GET and both POSTs', async () => {
    const url = await bearerAuthServer('sse');
    const without = await probeToolServer(url);
    expect(without.healthy).toBe(false);
    expect(without.reason).toMatch(/GET answered HTTP 401/);
    const withIt = await probeToolServer(url, { headers: { Authorization: `Bearer ${TOKEN}` } });
    expect(withIt.reason).toBeUndefined();
    expect(withIt.healthy).toBe(true);
    expect(withIt.post?.status).toBe(202);
    expect(withIt.initializedStatus).toBe(202);
    expect(withIt.headersWithheld).toBeUndefined();
  }, 30_000);

  test('Streamable HTTP: unhealthy (401) without the header; healthy with it, initialized and DELETE sent with it', async () => {
    const url = await bearerAuthServer('http');
    const without = await probeStreamableHttpServer(url);
    expect(without.healthy).toBe(false);
    expect(without.reason).toMatch(/POST initialize answered HTTP 401/);
    const withIt = await probeStreamableHttpServer(url, { headers: { Authorization: `Bearer ${TOKEN}` } });
    expect(withIt.reason).toBeUndefined();
    expect(withIt.healthy).toBe(true);
    expect(withIt.initializedStatus).toBe(202);
    expect(withIt.deleteStatus).toBe(200);
  }, 30_000);

  test('SSE: an endpoint on another origin gets the POSTs without the header, and the report says so', async () => {
    const seen: IncomingHttpHeaders[] = [];
    const other = createServer((req, res) => {
      seen.push(req.headers);
      req.resume();
      res.writeHead(401).end('who are you');
    });
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    cleanups.push(() => new Promise<void>((r) => other.close(() => r())));
    const otherOrigin = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
    const s = await startSseServer({ endpoint: (sid) => `${otherOrigin}/messages?sessionId=${sid}` });
    cleanups.push(() => s.close());
    const report = await probeToolServer(s.url, { headers: { Authorization: `Bearer ${TOKEN}` } });
    expect(report.healthy).toBe(false);
    expect(report.headersWithheld).toBe(true);
    expect(report.reason).toMatch(
      /HTTP 401.*--header values were not sent: http:\/\/127\.0\.0\.1:\d+ is not the stream's origin/,
    );
    expect(seen).toHaveLength(1);
    expect(seen[0]?.authorization).toBeUndefined();
    expect(formatProbeReport(report).join('\n')).toContain('--header: not sent with the POSTs');
  }, 30_000);

  test.each(['sse', 'http'] as const)(
    '`wirecheck probe --header` over %s: a variable is read from the environment; a token a 401 body echoes is not printed',
    async (transport) => {
      const url = await bearerAuthServer(transport);
      const ok = program({ MCP_TOKEN: TOKEN });
      const args = ['probe', url, ...(transport === 'http' ? ['--http'] : [])];
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the user's ${VAR}, expanded by wirecheck
      await ok.root.parseAsync([...args, '--header', 'Authorization: Bearer ${MCP_TOKEN}'], { from: 'user' });
      expect(ok.codes).toEqual([0]);
      expect(ok.out.join('')).toMatch(/\nhealthy/);

      // A wrong token, given literally: the 401 body echoes it and the right one; neither is printed.
      const wrong = 'Bearer wrong-secret-4567';
      for (const json of [false, true]) {
        const bad = program();
        await bad.root.parseAsync(
          [...args, '--header', `Authorization: ${wrong}`, ...(json ? ['--json'] : [])],
          {
            from: 'user',
          },
        );
        expect(bad.codes).toEqual([1]);
        const text = bad.out.join('');
        expect(text).toContain('401');
        expect(text).toContain('[redacted]');
        expect(text).not.toContain('wrong-secret-4567');
      }
    },
    30_000,
  );

  test('`wirecheck probe` prints a URL carrying a credential redacted, in text and JSON, short values included', async () => {
    const s = await startSseServer();
    cleanups.push(() => s.close());
    const withKey = `${s.url.replace('http://', 'http://ops:pw7@')}?api_key=k3y&tenant=acme`;
    for (const json of [false, true]) {
      const p = program();
      await p.root.parseAsync(['probe', withKey, ...(json ? ['--json'] : [])], { from: 'user' });
      const text = p.out.join('');
      expect(p.codes).toEqual([0]);
      expect(text).toContain('api_key=[redacted]&tenant=acme');
      expect(text).not.toMatch(/k3y|pw7/);
    }
  }, 30_000);

  test('bad --header values are bad usage: no colon, a header the probe sets itself, an unset variable', async () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the user's ${VAR}, expanded by wirecheck
    for (const header of ['Authorization', 'Accept: text/html', 'Authorization: Bearer ${NOT_SET_HERE}']) {
      const p = program();
      await expect(
        p.root.parseAsync(['probe', 'http://127.0.0.1:1/sse', '--header', header], { from: 'user' }),
      ).rejects.toMatchObject({ code: 'WC_USAGE' });
      expect(p.codes).toEqual([]);
    }
  });
});
