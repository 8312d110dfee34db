import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { serveOptionsOf } from '../../src/cli/serve-messages.js';
import { startMockForServe } from '../../src/cli/serve-messages-mock.js';
import { FIXTURE_FORMAT, FIXTURE_VERSION } from '../../src/fixtures/fixture-format.js';
import { type MessagesExchange, writeFixtureFile } from '../../src/fixtures/index.js';
import { UsageError } from '../../src/harness/errors.js';
import { cli } from './fake-suites.js';

// `wirecheck serve messages --replay DIR --match request`: each request is answered by the
// recording of the same request; one that drifted gets 400 and a line on standard error.

const question = (text: string) => ({
  model: 'claude-x',
  max_tokens: 64,
  messages: [{ role: 'user', content: text }],
});

function exchange(text: string, answer: string): MessagesExchange {
  const message = {
    id: `msg_${answer}`,
    type: 'message',
    role: 'assistant',
    model: 'claude-x',
    content: [{ type: 'text', text: answer }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 3, output_tokens: 1 },
  };
  return {
    format: FIXTURE_FORMAT,
    version: FIXTURE_VERSION,
    kind: 'messages-exchange',
    request: { method: 'POST', path: '/v1/messages', headers: {}, body: question(text) },
    response: {
      status: 200,
      headers: { 'content-type': 'application/json' },
      headersAtMs: 0,
      chunks: [{ atMs: 0, text: JSON.stringify(message) }],
      end: 'complete',
      endAtMs: 0,
    },
  };
}

async function post(url: string, text: string): Promise<{ status: number; body: string }> {
  const response = await fetch(`${url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'k' },
    body: JSON.stringify(question(text)),
    signal: AbortSignal.timeout(5000),
  });
  return { status: response.status, body: await response.text() };
}

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wirecheck-serve-match-'));
  await writeFixtureFile(join(dir, 'a.json'), exchange('one', 'first'));
  await writeFixtureFile(join(dir, 'b.json'), exchange('two', 'second'));
});
afterEach(async () => {
  vi.restoreAllMocks();
  await rm(dir, { recursive: true, force: true });
});

async function serve(args: string[]) {
  const stop = new AbortController();
  let printed = '';
  const done = cli(['serve', 'messages', ...args], {
    deps: {
      startMockMessagesService: async (options) => {
        const running = await startMockForServe(options);
        printed = running.url;
        return running;
      },
    },
    shutdown: stop.signal,
  });
  for (let i = 0; i < 100 && printed === ''; i++) await new Promise((r) => setTimeout(r, 20));
  expect(printed).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  return {
    url: printed,
    stop: async () => {
      stop.abort();
      return await done;
    },
  };
}

describe('wirecheck serve messages --match', () => {
  test('--match request answers by request, and a drifted one gets 400 and a line on standard error', async () => {
    const stderr: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array, ...rest: unknown[]) => {
      if (String(chunk).startsWith('wirecheck serve messages:')) {
        stderr.push(String(chunk));
        return true;
      }
      return (write as (c: string | Uint8Array, ...r: unknown[]) => boolean)(chunk, ...rest);
    });
    const server = await serve(['--replay', dir, '--match', 'request', '--speed', 'max']);
    try {
      expect((await post(server.url, 'two')).body).toContain('"text":"second"');
      expect((await post(server.url, 'one')).body).toContain('"text":"first"');
      const drifted = await post(server.url, 'three');
      expect(drifted.status).toBe(400);
      const error = JSON.parse(drifted.body) as { type: string; error: { type: string; message: string } };
      expect(error.type).toBe('error');
      expect(error.error.type).toBe('invalid_request_error');
      expect(error.error.message).toMatch(/^wirecheck replay: no recording matches this request/);
      expect(error.error.message).toContain(
        `the nearest is ${join(dir, 'a.json')} (1 difference), first at $.messages[0].content: recorded "one", arrived "three"`,
      );
      expect(stderr).toEqual([`wirecheck serve messages: ${error.error.message}\n`]);
    } finally {
      expect((await server.stop()).code).toBe(0);
    }
  });

  test("a refusal's body and line show neither the accepted key nor a secret of the environment", async () => {
    const stderr: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      stderr.push(String(chunk));
      return true;
    });
    const key = 'sk-ant-accepted-0123456789';
    const token = 'env-token-0123456789abcdef';
    vi.stubEnv('WIRECHECK_MATCH_TEST_TOKEN', token);
    const server = await serve(['--replay', dir, '--match', 'request', '--speed', 'max', '--api-key', key]);
    try {
      const response = await fetch(`${server.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify(question(`one ${key} ${token}`)),
        signal: AbortSignal.timeout(5000),
      });
      expect(response.status).toBe(400);
      const body = await response.text();
      expect(body).toContain('arrived \\"one [redacted] [redacted]\\"');
      for (const secret of [key, token]) {
        expect(body).not.toContain(secret);
        expect(stderr.join('')).not.toContain(secret);
      }
    } finally {
      expect((await server.stop()).code).toBe(0);
      vi.unstubAllEnvs();
    }
  });

  test('without --match the recordings are served in turn, whatever arrives', async () => {
    const server = await serve(['--replay', dir, '--speed', 'max']);
    try {
      expect((await post(server.url, 'three')).body).toContain('"text":"first"');
      expect((await post(server.url, 'one')).body).toContain('"text":"second"');
    } finally {
      await server.stop();
    }
  });

  test('--match needs --replay and is order or request', () => {
    const base = { port: '0', host: '127.0.0.1', model: 'echo' };
    expect(serveOptionsOf({ ...base, replay: [dir], match: 'request' }).match).toBe('request');
    expect(serveOptionsOf({ ...base, replay: [dir] }).match).toBeUndefined();
    expect(() => serveOptionsOf({ ...base, match: 'request' })).toThrow(UsageError);
    expect(() => serveOptionsOf({ ...base, match: 'request' })).toThrow('--match applies to --replay');
    expect(() => serveOptionsOf({ ...base, replay: [dir], match: 'body' })).toThrow(
      '--match is order or request',
    );
  });
});
