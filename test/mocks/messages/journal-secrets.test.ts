import { describe, expect, test } from 'vitest';
import { createMockMessagesApp } from '../../../src/mocks/messages/index.js';
import { journalBodyOf, MAX_BODY_SECRETS } from '../../../src/mocks/messages/state.js';
import { REDACTED } from '../../../src/recording/redact.js';
import { messagesBody, SAMPLE } from './helpers.js';

/** `count` distinct secret values, each long enough to be scrubbed from free text. */
function secretValues(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `sv-${String(i).padStart(6, '0')}-zz`);
}

describe('what the journal keeps of a body, given the secrets a request presented', () => {
  test('more distinct secrets than the cap: the body is withheld whole, with why, and nothing is searched', () => {
    const secrets = secretValues(MAX_BODY_SECRETS + 1);
    const body = secrets.join(' ').repeat(100);
    const kept = journalBodyOf(body, secrets, 1024 * 1024);
    expect(kept).toEqual({
      text: `[redacted: the request presented ${MAX_BODY_SECRETS + 1} distinct secret values, more than the ${MAX_BODY_SECRETS} a body is scrubbed of (MAX_BODY_SECRETS)]`,
      cut: false,
      withheld: true,
      searched: 0,
    });
    expect(MAX_BODY_SECRETS).toBe(16);
  });

  test('up to the cap: a 32 MiB body is searched only as far as the journal keeps it, a secret across the cut included', () => {
    const secrets = secretValues(MAX_BODY_SECRETS);
    const keep = 1024 * 1024;
    const straddling = secrets[7]!;
    const body = `${'x'.repeat(keep - 5)}${straddling}${'y'.repeat(32 * 1024 * 1024)}`;
    const kept = journalBodyOf(body, secrets, keep);
    // Past the cut, room for the longest secret however encoded: a UTF-8 character percent-encoded
    // takes 9 characters (`%E2%82%AC`), so 9 per character of the secret, less the one kept.
    const longest = Math.max(...secrets.map((s) => s.length));
    expect(kept.searched).toBe(keep + 9 * longest - 1);
    expect(kept.cut).toBe(true);
    expect(kept.withheld).toBe(false);
    expect(kept.text).toBe(`${'x'.repeat(keep - 5)}${REDACTED}`);
  });

  test('a body within the limit is scrubbed whole', () => {
    const secrets = secretValues(3);
    const kept = journalBodyOf(`a ${secrets[2]} b`, secrets, 1024);
    expect(kept).toEqual({ text: `a ${REDACTED} b`, cut: false, withheld: false, searched: 16 });
  });
});

describe('a request presenting a thousand secrets (the mock journal)', () => {
  const secrets = secretValues(1000);
  const url = `/v1/messages?${secrets
    .slice(0, 500)
    .map((v, i) => `p${i}_token=${v}`)
    .join('&')}`;
  // A key too short to be scrubbed: the thousand are the only secrets.
  const headers: Record<string, string> = { 'x-api-key': 'k', 'content-type': 'application/json' };
  secrets.slice(500).forEach((v, i) => {
    headers[`x-h${i}-token`] = v;
  });

  test('is served; its journal entry holds none of them: the body is withheld, headers and URL redacted', async () => {
    const { app, state } = createMockMessagesApp({ scenario: () => ({ kind: 'message', message: SAMPLE }) });
    const payload = JSON.stringify(messagesBody(secrets.join(' ')));
    const res = await app.inject({ method: 'POST', url, headers, payload });
    expect(res.statusCode).toBe(200);
    const [entry] = state.journal.entries();
    expect(entry!.body).toBe(
      `[redacted: the request presented 1000 distinct secret values, more than the ${MAX_BODY_SECRETS} a body is scrubbed of (MAX_BODY_SECRETS)]`,
    );
    expect(entry!.stream).toBe(false);
    // A flag the suites read, as bodyTruncated for a cut body: the note is no request to judge.
    expect(entry!.bodyWithheld).toEqual({ bytes: Buffer.byteLength(payload), secrets: 1000 });
    expect(entry!.bodyTruncated).toBeUndefined();
    const served = (await app.inject({ method: 'GET', url: '/__wirecheck/journal' })).body;
    expect(served).not.toMatch(/sv-\d{6}-zz/);
    expect(entry!.headers['x-h0-token']).toBe(REDACTED);
    await app.close();
  });

  test('a body cut by the journal keeps no first part of a secret that straddles the cut; its size is the body sent', async () => {
    const { app, state } = createMockMessagesApp({
      scenario: () => ({ kind: 'message', message: SAMPLE }),
      journalLimits: { bodyBytes: 4096 },
    });
    const secret = secrets[0]!;
    // The secret begins 5 bytes before the journal's cut.
    const before = JSON.stringify(messagesBody('@')).indexOf('@');
    const text = `${'x'.repeat(4096 - 5 - before)}${secret}${'y'.repeat(100_000)}`;
    const payload = JSON.stringify(messagesBody(text));
    const res = await app.inject({
      method: 'POST',
      url: '/v1/messages',
      headers: { 'x-api-key': 'k', 'x-my-token': secret, 'content-type': 'application/json' },
      payload,
    });
    expect(res.statusCode).toBe(200);
    const [entry] = state.journal.entries();
    expect(entry!.bodyTruncated).toEqual({ bytes: Buffer.byteLength(payload) });
    // What is kept ends where the secret began: its placeholder, itself cut at 4096 bytes.
    expect(entry!.body).toBe(`${payload.slice(0, 4091)}${REDACTED}`.slice(0, 4096));
    expect(entry!.body).not.toContain(secret.slice(0, 3));
    expect(entry!.bodyWithheld).toBeUndefined();
    await app.close();
  });
});
