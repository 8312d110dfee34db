import { createServer, type OutgoingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { TargetUnavailable } from '../../../src/harness/check.js';
import { messagesServiceSuite } from '../../../src/suites/messages-service/index.js';
import { TEXT_MESSAGE } from './stream-replies.js';

// The probe's reply decides whether the target can be tested at all: a reply nothing at the
// URL meant as the messages API is exit 2, never a list of failures blaming the protocol.

const KEY_ENV = 'WIRECHECK_TEST_PREFLIGHT_KEY';
const MODEL = 'claude-wirecheck-preflight';

interface Canned {
  readonly status: number;
  readonly headers: OutgoingHttpHeaders;
  readonly body: string;
}

/** A service answering every request with `reply`; counts the requests. */
async function serve(
  reply: Canned,
): Promise<{ baseUrl: string; requests: () => number; close(): Promise<void> }> {
  let requests = 0;
  const server = createServer((req, res) => {
    requests++;
    req.resume();
    req.on('end', () => res.writeHead(reply.status, reply.headers).end(reply.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests: () => requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** What opening the suite on a service answering `reply` gives: the context closed, or the error. */
async function openOn(reply: Canned): Promise<{ error: unknown; requests: number }> {
  const service = await serve(reply);
  try {
    const error = await messagesServiceSuite
      .open({ baseUrl: service.baseUrl, apiKeyEnv: KEY_ENV, model: MODEL }, { seed: 1, runs: 1, full: false })
      .then(async (ctx) => {
        await ctx.close();
        return undefined;
      })
      .catch((e: unknown) => e);
    return { error, requests: service.requests() };
  } finally {
    await service.close();
  }
}

function apiError(type: string, message: string): string {
  return JSON.stringify({ type: 'error', error: { type, message }, request_id: 'req_1' });
}

const sse = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

beforeAll(() => {
  process.env[KEY_ENV] = 'sk-test-preflight-0123456789';
});
afterAll(() => {
  delete process.env[KEY_ENV];
});

describe('a 2xx reply to the probe that is neither JSON nor an event stream', () => {
  test('an empty 200 (a reverse proxy with no route for the path) makes the target unavailable', async () => {
    const { error, requests } = await openOn({ status: 200, headers: { server: 'Caddy' }, body: '' });
    expect(error).toBeInstanceOf(TargetUnavailable);
    const message = (error as Error).message;
    expect(message).toContain('/v1/messages answered the plainest request of the suite');
    expect(message).toContain('HTTP 200 (no content-type) and an empty body');
    expect(message).toMatch(/expected a JSON message \(application\/json\)/);
    expect(message).toContain('is the base URL right?');
    expect(requests).toBe(1);
  });

  test('a 200 text/plain "OK" (a health route) makes the target unavailable, quoting what arrived', async () => {
    const { error } = await openOn({ status: 200, headers: { 'content-type': 'text/plain' }, body: 'OK' });
    expect(error).toBeInstanceOf(TargetUnavailable);
    expect((error as Error).message).toContain('with HTTP 200 (text/plain) "OK": expected a JSON message');
  });
});

describe('replies the checks judge, rightly or not, open the suite', () => {
  test('a JSON body of another shape', async () => {
    const { error } = await openOn({
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: '{"status":"ok"}',
    });
    expect(error).toBeUndefined();
  });

  test('a JSON message cut short (the service answering the API, wrongly)', async () => {
    const { error } = await openOn({
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(TEXT_MESSAGE).slice(0, 40),
    });
    expect(error).toBeUndefined();
  });

  test('an event stream for the buffered request, said by its content type or only by its frames', async () => {
    const body = sse('message_start', { type: 'message_start', message: { ...TEXT_MESSAGE, content: [] } });
    for (const headers of [{ 'content-type': 'text/event-stream' }, { 'content-type': 'text/plain' }]) {
      const { error } = await openOn({ status: 200, headers, body });
      expect(error, JSON.stringify(headers)).toBeUndefined();
    }
  });
});

describe('a 404 to the probe', () => {
  test("the API's not_found_error naming the model says the model is not served, with the --model hint", async () => {
    // The real API's answer to a model it does not serve (anthropics/claude-code#5349).
    const { error } = await openOn({
      status: 404,
      headers: { 'content-type': 'application/json' },
      body: apiError('not_found_error', `model: ${MODEL}`),
    });
    expect(error).toBeInstanceOf(TargetUnavailable);
    const message = (error as Error).message;
    expect(message).toContain(`does not serve model "${MODEL}": HTTP 404`);
    expect(message).toContain('--model names another');
    expect(message).not.toContain('without /v1');
  });

  test('a not_found_error that names no model leaves both causes open', async () => {
    const { error } = await openOn({
      status: 404,
      headers: { 'content-type': 'application/json' },
      body: apiError('not_found_error', 'Not Found'),
    });
    expect(error).toBeInstanceOf(TargetUnavailable);
    const message = (error as Error).message;
    expect(message).toMatch(/is not served: HTTP 404 .*unknown path or an unknown model/);
    expect(message).toContain('it is the URL without /v1');
    expect(message).toContain('--model names another');
  });

  test('a 404 that is not the API speaking blames the base URL only', async () => {
    const { error } = await openOn({
      status: 404,
      headers: { 'content-type': 'text/plain' },
      body: 'Not Found',
    });
    expect(error).toBeInstanceOf(TargetUnavailable);
    const message = (error as Error).message;
    expect(message).toMatch(/is not served: HTTP 404 \(text\/plain\) "Not Found" \(is the base URL right/);
    expect(message).not.toContain('--model');
  });
});
