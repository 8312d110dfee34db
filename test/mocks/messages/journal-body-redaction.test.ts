import { describe, expect, test } from 'vitest';
import { createMockMessagesApp, type MockMessagesOptions } from '../../../src/mocks/messages/index.js';
import { REDACTED } from '../../../src/recording/redact.js';
import { messagesBody, SAMPLE } from './helpers.js';

const KEY = 'sk-ant-api03-SECRETSECRET';
const TOKEN = 'oauth-SECRET-abcdef123456';
const HEADERS = { 'x-api-key': KEY, 'content-type': 'application/json' };

async function send(payload: string, opts: MockMessagesOptions = {}) {
  const { app, state } = createMockMessagesApp({
    scenario: () => ({ kind: 'message', message: SAMPLE }),
    ...opts,
  });
  const res = await app.inject({ method: 'POST', url: '/v1/messages', headers: HEADERS, payload });
  const served = (await app.inject({ method: 'GET', url: '/__wirecheck/journal' })).body;
  const entry = state.journal.entries()[0]!;
  const kept = state.journal.bodyTextOf(entry);
  await app.close();
  return { res, served, entry, kept };
}

/** Every run of `n` characters of `secret`: what must not be quoted anywhere. */
const partsOf = (secret: string, n: number) =>
  Array.from({ length: secret.length - n + 1 }, (_, i) => secret.slice(i, i + n));

describe('the journal redacts credential-named fields of a JSON body', () => {
  const server = { type: 'url', url: 'https://mcp.example/sse', name: 'x', authorization_token: TOKEN };
  const withToken = messagesBody('hi', { mcp_servers: [server] });

  test('an MCP server authorization_token is [redacted]; the rest of the body is kept', async () => {
    const { res, served, entry } = await send(JSON.stringify(withToken));
    expect(res.statusCode).toBe(200);
    expect(served).not.toContain(TOKEN);
    expect(entry.body).toEqual({
      ...withToken,
      mcp_servers: [{ ...server, authorization_token: REDACTED }],
    });
  });

  test('the presented key is still scrubbed from the values of such a body', async () => {
    const body = { ...withToken, messages: [{ role: 'user', content: `my key is ${KEY}` }] };
    const { served, entry } = await send(JSON.stringify(body));
    expect(served).not.toContain(KEY);
    expect(served).not.toContain(TOKEN);
    expect((entry.body as typeof body).messages[0]!.content).toBe(`my key is ${REDACTED}`);
  });

  test('cut by the journal: the kept start holds no token, and the size noted is the body sent', async () => {
    // The long field after the token's, so the kept start reaches it (keys keep their order).
    const payload = JSON.stringify({ ...withToken, system: 'x'.repeat(20_000) });
    const { served, entry } = await send(payload, { journalLimits: { bodyBytes: 4096 } });
    expect(served).not.toContain(TOKEN);
    expect(entry.bodyTruncated).toEqual({ bytes: Buffer.byteLength(payload) });
    expect(typeof entry.body).toBe('string');
    expect(entry.body as string).toContain(`"authorization_token":"${REDACTED}"`);
  });

  test('a body without such a field is kept as sent', async () => {
    const payload = `{ "model": "m",\n  "max_tokens": 5, "messages": [{"role": "user", "content": "max_tokens keyword"}] }`;
    const { kept } = await send(payload);
    expect(kept).toEqual({ text: payload, json: true });
  });
});

describe("the parser's message about a body that is not JSON quotes no secret", () => {
  test.each([
    ['a key written as a bare value', `{"model":"m","api_key":${KEY}}`],
    ['a key as the whole body', KEY],
    ['a key in a form body', `api_key=${KEY}&model=m`],
    ['a key right after the error', `{"model":"m" ${KEY}}`],
  ])('%s: neither the 400 nor the journal holds four characters of it in a row', async (_, payload) => {
    const { res, entry } = await send(payload);
    expect(res.statusCode).toBe(400);
    const message = JSON.parse(res.body).error.message as string;
    expect(message).toMatch(/^request body is not valid JSON: /);
    expect(entry.bodyError).toBe(message);
    for (const part of partsOf(KEY, 4)) {
      expect(message).not.toContain(part);
      expect(JSON.stringify(entry.body)).not.toContain(part);
    }
  });

  test('a quote holding no secret is kept, as the parser wrote it', async () => {
    const { res } = await send('{"model": nope, "max_tokens": 5}');
    expect(JSON.parse(res.body).error.message).toBe(
      `request body is not valid JSON: Unexpected token 'o', ...""model": nope, "max_"... is not valid JSON`,
    );
  });
});
