import { describe, expect, test } from 'vitest';
import { TargetUnavailable } from '../../../src/harness/check.js';
import { runSuite } from '../../../src/harness/run-suite.js';
import {
  referenceToolServerCommand,
  type ToolServerTarget,
  toolServerTargetFromOptions,
} from '../../../src/suites/tool-server/index.js';
import { freePort, notPassed, runAgainst, SEED, serverScript, statusById, testSuite } from './helpers.js';

// servers/bearer-auth.mjs: the conforming server that answers 401, echoing the token, to any
// request without `Authorization: Bearer t0ken-secret-123` (--header, README tool-server).
const TOKEN = 't0ken-secret-123';

/** The auth server (or, without auth, the same conforming base) over `transport`, with these --header values. */
async function target(
  transport: 'sse' | 'http',
  header?: string | string[],
  server: 'bearer-auth' | 'plain' = 'bearer-auth',
  endpointHost?: string,
): Promise<ToolServerTarget> {
  const port = await freePort();
  const script =
    server === 'bearer-auth'
      ? `${serverScript('bearer-auth')} --transport ${transport} --port ${port}${endpointHost === undefined ? '' : ` --endpoint-host ${endpointHost}`}`
      : transport === 'http'
        ? `${serverScript('streamable-conforming')} --port ${port}`
        : `${serverScript('conforming')} --transport sse --port ${port}`;
  return toolServerTargetFromOptions({
    [transport]: `http://127.0.0.1:${port}/${transport === 'http' ? 'mcp' : 'sse'}`,
    start: script,
    callTools: 'all',
    ...(header === undefined ? {} : { header }),
  });
}

describe('--header: a tool server behind a bearer token', () => {
  test.each(['sse', 'http'] as const)(
    'over %s: unavailable without the header; with it, the same verdicts as without auth, and the token in no result',
    async (transport) => {
      await expect(runSuite(testSuite, await target(transport), { seed: SEED, runs: 10 })).rejects.toThrow(
        TargetUnavailable,
      );
      process.env.WIRECHECK_TEST_MCP_TOKEN = TOKEN;
      const authedTarget = target(transport, `Authorization: Bearer \${WIRECHECK_TEST_MCP_TOKEN}`).finally(
        () => {
          delete process.env.WIRECHECK_TEST_MCP_TOKEN;
        },
      );
      const [authed, plain] = await Promise.all([
        authedTarget.then((t) => runAgainst(t)),
        target(transport, undefined, 'plain').then((t) => runAgainst(t)),
      ]);
      expect(notPassed(authed)).toEqual([]);
      // The checks ran on the server, not around it.
      expect(authed.summary.passed).toBeGreaterThanOrEqual(transport === 'sse' ? 30 : 20);
      expect(statusById(authed)).toEqual(statusById(plain));
      expect(JSON.stringify(authed)).not.toContain(TOKEN);
    },
    300_000,
  );

  test.each(['sse', 'http'] as const)(
    'over %s: the reference server behind a token (serve tools --require-header) passes with --header, and is unavailable without it',
    async (transport) => {
      const port = await freePort();
      const required = `Authorization: Bearer ${TOKEN}`;
      const server = (header?: string) =>
        toolServerTargetFromOptions({
          [transport]: `http://127.0.0.1:${port}/${transport === 'http' ? 'mcp' : 'sse'}`,
          start: `${referenceToolServerCommand(transport, port)} --require-header '${required}'`,
          ...(header === undefined ? {} : { header }),
        });
      await expect(runSuite(testSuite, server(), { seed: SEED, runs: 1 })).rejects.toThrow(
        /401.*requires the Authorization header; the request's was missing/s,
      );
      const authed = await runAgainst(server(required));
      expect(notPassed(authed)).toEqual([]);
      expect(authed.summary.passed).toBeGreaterThanOrEqual(transport === 'sse' ? 30 : 20);
      expect(JSON.stringify(authed)).not.toContain(TOKEN);
    },
    300_000,
  );

  test('a 401 body that echoes the credential sent is scrubbed from the unavailable message', async () => {
    const wrong = 'Bearer wrong-secret-4567';
    const run = runSuite(testSuite, await target('sse', `Authorization: ${wrong}`), { seed: SEED, runs: 1 });
    const error = await run.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TargetUnavailable);
    const message = (error as Error).message;
    expect(message).toContain('401');
    expect(message).toContain('[redacted]');
    expect(message).not.toContain('wrong-secret-4567');
  }, 60_000);

  test('an SSE endpoint on another origin gets no header, and the refusal it answers with says why', async () => {
    // The server announces its endpoint under another name of itself (localhost for 127.0.0.1):
    // another origin, so the POSTs go without the token and are answered 401.
    const run = runSuite(
      testSuite,
      await target('sse', `Authorization: Bearer ${TOKEN}`, 'bearer-auth', 'localhost'),
      {
        seed: SEED,
        runs: 1,
      },
    );
    const error = await run.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TargetUnavailable);
    const message = (error as Error).message;
    expect(message).toMatch(
      /HTTP 401.*the --header values were not sent with it: http:\/\/localhost:\d+ is not the target URL's origin/s,
    );
    expect(message).not.toContain(TOKEN);
  }, 60_000);
});
