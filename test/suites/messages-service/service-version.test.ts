import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { afterEach, describe, expect, test } from 'vitest';
import { CheckFailure, NotExercised } from '../../../src/harness/check.js';
import { httpChecks } from '../../../src/suites/messages-service/checks/http.js';
import type { MessagesServiceCtx } from '../../../src/suites/messages-service/context.js';
import { TEXT_MESSAGE } from './stream-replies.js';

// The real API (and a transparent proxy in front of it) refuses a request without
// anthropic-version, whatever service-version says: that is the real API's name for the
// header, not a refusal of the spec's request.

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

const REAL_API_REFUSAL = {
  type: 'error',
  error: { type: 'invalid_request_error', message: 'anthropic-version: header is required' },
};

/** A service on 127.0.0.1:0 answering every request with `status` and `body`, keeping the headers it got. */
async function ctxOf(
  status: number,
  body: unknown,
): Promise<{ ctx: MessagesServiceCtx; got: IncomingHttpHeaders[] }> {
  const got: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    got.push(req.headers);
    req.resume();
    req.on('end', () =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body)),
    );
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  const client = {
    baseUrl: `http://127.0.0.1:${port}`,
    apiKey: 'k',
    requestTimeoutMs: 10_000,
    signal: new AbortController().signal,
  };
  return { ctx: { client, model: 'm' } as unknown as MessagesServiceCtx, got };
}

const check = httpChecks.find((c) => c.id === 'messages-service.headers.service-version')!;
const env = { signal: new AbortController().signal } as never;

describe('messages-service.headers.service-version', () => {
  test("a refusal asking for anthropic-version (the real API's) leaves it not exercised, saying why", async () => {
    const { ctx, got } = await ctxOf(400, REAL_API_REFUSAL);
    const error = await check.run(ctx, env).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(got[0]?.['service-version']).toBe('2023-06-01');
    expect(got[0]?.['anthropic-version']).toBeUndefined();
    expect(error).toBeInstanceOf(NotExercised);
    expect((error as Error).message).toContain("uses the real API's name for the version header");
    expect((error as Error).message).toContain('anthropic-version: header is required');
  });

  test('any other refusal still fails', async () => {
    const other = {
      type: 'error',
      error: { type: 'invalid_request_error', message: 'service-version: unknown' },
    };
    const { ctx } = await ctxOf(400, other);
    const error = await check.run(ctx, env).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(CheckFailure);
    expect((error as Error).message).toMatch(/must be served.*expected HTTP 200, got HTTP 400/);
  });

  test('a server error that names anthropic-version is no refusal of the header: it fails', async () => {
    const crash = {
      type: 'error',
      error: { type: 'api_error', message: 'anthropic-version lookup crashed' },
    };
    const { ctx } = await ctxOf(500, crash);
    await expect(check.run(ctx, env)).rejects.toBeInstanceOf(CheckFailure);
  });

  test('a service that serves the request passes', async () => {
    const { ctx } = await ctxOf(200, TEXT_MESSAGE);
    await expect(check.run(ctx, env)).resolves.toBeUndefined();
  });
});
