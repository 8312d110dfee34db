import { expect, test } from 'vitest';
import { createMockMessagesApp, scriptScenario } from '../../../src/mocks/messages/index.js';
import { KEY, messagesBody, SAMPLE, SAMPLE_SPLITS } from './helpers.js';

// A web page calling the mock (the SDK with dangerouslyAllowBrowser, a page whose base URL is
// the mock): its browser asks first (preflight), then reads the answer only if allowed.

const PAGE = 'http://localhost:5173';
/** What the SDK in a page sends (dangerouslyAllowBrowser), as the real API asks. */
const OPT_IN = { 'anthropic-dangerous-direct-browser-access': 'true' };

function app() {
  return createMockMessagesApp({
    scenario: scriptScenario(Array(3).fill({ kind: 'message', message: SAMPLE, splits: SAMPLE_SPLITS })),
  });
}

test("a page's preflight for /v1/messages is allowed, with the headers it asked for, and not journaled", async () => {
  const { app: mock, state } = app();
  const res = await mock.inject({
    method: 'OPTIONS',
    url: '/v1/messages',
    headers: {
      origin: PAGE,
      'access-control-request-method': 'POST',
      'access-control-request-headers':
        'x-api-key,anthropic-version,anthropic-dangerous-direct-browser-access',
    },
  });
  await mock.close();
  expect(res.statusCode).toBe(204);
  expect(res.headers).toMatchObject({
    'access-control-allow-origin': PAGE,
    'access-control-allow-methods': 'POST, OPTIONS',
    'access-control-allow-headers': 'x-api-key,anthropic-version,anthropic-dangerous-direct-browser-access',
  });
  expect(state.journal.entries()).toEqual([]);
});

test("a page's request is answered readably, streamed or not, errors included; the control routes are not opened to pages", async () => {
  const { app: mock } = app();
  const headers = { ...KEY, ...OPT_IN, origin: PAGE };
  const streamed = await mock.inject({
    method: 'POST',
    url: '/v1/messages',
    headers,
    payload: messagesBody('hi', { stream: true }),
  });
  const refused = await mock.inject({
    method: 'POST',
    url: '/v1/messages',
    headers: { ...OPT_IN, origin: PAGE },
    payload: '{}',
  });
  const control = await mock.inject({
    method: 'GET',
    url: '/__wirecheck/journal',
    headers: { origin: 'https://pages.example' },
  });
  await mock.close();
  expect(streamed.statusCode).toBe(200);
  for (const res of [streamed, refused]) {
    expect(res.headers['access-control-allow-origin']).toBe(PAGE);
    expect(res.headers['access-control-expose-headers']).toContain('request-id');
  }
  expect(refused.statusCode).toBe(401);
  expect(control.statusCode).toBe(403);
  expect(control.headers['access-control-allow-origin']).toBeUndefined();
});

test('a page that does not opt in, or a site other than the app under test, is served but cannot read the answer', async () => {
  const { app: mock } = app();
  const post = (headers: Record<string, string>) =>
    mock.inject({
      method: 'POST',
      url: '/v1/messages',
      headers: { ...KEY, ...headers },
      payload: messagesBody('hi'),
    });
  const noOptIn = await post({ origin: PAGE });
  const otherSite = await post({ ...OPT_IN, origin: 'https://pages.example' });
  const preflight = await mock.inject({
    method: 'OPTIONS',
    url: '/v1/messages',
    headers: {
      origin: PAGE,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'x-api-key',
    },
  });
  await mock.close();
  for (const res of [noOptIn, otherSite]) {
    expect(res.statusCode).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  }
  expect(preflight.statusCode).toBe(404);
  expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
});
