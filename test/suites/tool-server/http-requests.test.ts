import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from 'vitest';
import { openGet, post } from '../../../src/suites/tool-server/http.js';

// What goes into these requests can come from the server under test (an endpoint URL it
// announced, an event id sent back as Last-Event-ID). Node throws at once for a scheme other
// than http(s) or a header value it refuses; before, that threw out of a promise nobody
// awaited and stopped the run as a harness error.

test('a POST to an endpoint of another scheme resolves with a problem naming the scheme', async () => {
  const outcome = await post(new URL('ftp://127.0.0.1/messages?sessionId=1'), '{}', { timeoutMs: 1000 });
  expect(outcome.status).toBeUndefined();
  expect(outcome.problem).toMatch(/is not http or https \(scheme ftp:\)/);
});

test('a GET with a header value Node refuses resolves with a problem, not a throw', async () => {
  const got = await openGet(new URL('http://127.0.0.1:9/mcp'), { 'last-event-id': 'a\u0001b' }, 1000);
  expect(got).toMatchObject({ timedOut: false });
  expect('problem' in got && got.problem).toMatch(
    /could not send the request: Invalid character in header content/,
  );
});

test("the target's --header goes with every request to its origin, beside the call's own headers, and no other origin gets it", async () => {
  const seen: Record<string, string | undefined>[] = [];
  const listen = async () => {
    const server = createServer((req, res) => {
      seen.push({
        host: req.headers.host,
        authorization: req.headers.authorization,
        accept: req.headers.accept,
      });
      res.end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  };
  const [target, elsewhere] = await Promise.all([listen(), listen()]);
  try {
    const targetHeaders = { origin: target.origin, headers: { Authorization: 'Bearer t0ken-secret-123' } };
    await post(new URL(`${target.origin}/messages`), '{}', { timeoutMs: 1000, targetHeaders });
    const got = await openGet(
      new URL(`${target.origin}/sse`),
      { accept: 'text/event-stream' },
      1000,
      targetHeaders,
    );
    if ('req' in got) got.req.destroy();
    await post(new URL(`${elsewhere.origin}/messages`), '{}', { timeoutMs: 1000, targetHeaders });
    const auth = 'Bearer t0ken-secret-123';
    expect(seen).toEqual([
      { host: target.origin.slice(7), authorization: auth, accept: undefined },
      { host: target.origin.slice(7), authorization: auth, accept: 'text/event-stream' },
      { host: elsewhere.origin.slice(7), authorization: undefined, accept: undefined },
    ]);
  } finally {
    target.server.close();
    elsewhere.server.close();
  }
});
