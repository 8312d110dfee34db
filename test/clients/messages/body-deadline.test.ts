import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, test } from 'vitest';
import {
  BodyTimeoutError,
  ConnectionError,
  MessagesClient,
  resolveOptions,
  runMessagesClientCommand,
  StreamError,
} from '../../../src/clients/messages/index.js';
import type { MessageRequest } from '../../../src/protocol/messages/index.js';
import { encodeEvent } from '../../../src/protocol/sse/index.js';
import { MESSAGE, SSE_HEADERS, streamBody } from './raw-service.js';

const REQUEST: MessageRequest = {
  model: 'model-x',
  max_tokens: 64,
  messages: [{ role: 'user', content: 'hi' }],
};

/** A reply that never ends: `first`, then `beat` every few milliseconds, each byte resetting any idle watchdog. */
function forever(res: ServerResponse, headers: Record<string, string>, first: string, beat: string): void {
  res.writeHead(200, headers);
  res.write(first);
  const timer = setInterval(() => res.write(beat), 5);
  res.on('close', () => clearInterval(timer));
}

/**
 * The outcome (value or failure) of `run` against a node:http server on 127.0.0.1:0 that
 * answers with `handle`; the server is closed whatever happens. Each run carries a 5 s abort
 * as a safety net: without a deadline the read would never end.
 */
async function against(
  handle: (res: ServerResponse) => void,
  run: (env: Record<string, string>, signal: AbortSignal) => Promise<unknown>,
): Promise<unknown> {
  const server = createServer((req, res) => {
    req.resume();
    handle(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const env = { WIRECHECK_BASE_URL: url, WIRECHECK_API_KEY: 'sk-test', WIRECHECK_MAX_RETRIES: '0' };
  try {
    return await run(env, AbortSignal.timeout(5_000)).catch((error: unknown) => error);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

const OPTIONS = { idleTimeoutMs: 1_000, bodyTimeoutMs: 150, maxRetries: 0 };

const START = encodeEvent({
  type: 'message_start',
  message: { ...MESSAGE, content: [], stop_reason: null },
} as never);

describe('messages client: a body that never ends (bodyTimeoutMs)', () => {
  test('a stream kept alive by a comment every few ms fails at the deadline with a StreamError', async () => {
    const error = await against(
      (res) => forever(res, SSE_HEADERS, START, ': ping\n\n'),
      (env, signal) =>
        new MessagesClient({ env, ...OPTIONS }).create({ ...REQUEST, stream: true }, { signal }),
    );
    expect(error).toBeInstanceOf(StreamError);
    const failure = error as StreamError;
    expect(failure.kind).toBe('stream');
    expect(failure.status).toBe(200);
    expect(failure.cause).toBeInstanceOf(BodyTimeoutError);
    expect(failure.message).toBe(
      'stream not ended within 150 ms of waiting for it (bodyTimeoutMs): still open after frame 1',
    );
  });

  test('a buffered body trickling a space every few ms fails at the deadline with a ConnectionError', async () => {
    const error = await against(
      (res) => forever(res, { 'content-type': 'application/json' }, '{', ' '),
      (env, signal) => new MessagesClient({ env, ...OPTIONS }).create(REQUEST, { signal }),
    );
    expect(error).toBeInstanceOf(ConnectionError);
    const failure = error as ConnectionError;
    expect(failure.cause).toBeInstanceOf(BodyTimeoutError);
    expect(failure.message).toMatch(
      /^response body not ended within 150 ms of waiting for it \(bodyTimeoutMs\): still open after \d+ bytes$/,
    );
  });

  test('the messages-client command prints the stream error object at WIRECHECK_BODY_TIMEOUT_MS', async () => {
    const outcome = await against(
      (res) => forever(res, SSE_HEADERS, START, ': ping\n\n'),
      (env, signal) =>
        runMessagesClientCommand({
          stdin: JSON.stringify({ ...REQUEST, stream: true }),
          env: { ...env, WIRECHECK_BODY_TIMEOUT_MS: '150' },
          signal,
        }),
    );
    const result = outcome as { stdout: string; exitCode: number };
    expect(result.exitCode).toBe(1);
    expect(JSON.parse(result.stdout).error).toMatchObject({ kind: 'stream', status: 200 });
  });

  test("a slow consumer's own time is not counted: a whole stream read with a pause longer than the deadline", async () => {
    const message = await against(
      (res) => {
        res.writeHead(200, SSE_HEADERS);
        res.end(streamBody());
      },
      async (env, signal) => {
        const stream = new MessagesClient({ env, ...OPTIONS, bodyTimeoutMs: 50 }).stream(REQUEST, { signal });
        let events = 0;
        for await (const _ of stream) {
          if (events++ === 0) await new Promise((resolve) => setTimeout(resolve, 120));
        }
        return stream.finalMessage();
      },
    );
    expect(message).toEqual(MESSAGE);
  });

  test('the default is 10 minutes; a value that is not a delay setTimeout keeps is a TypeError naming it', () => {
    const env = { WIRECHECK_API_KEY: 'k' };
    expect(resolveOptions({ env }).bodyTimeoutMs).toBe(600_000);
    expect(() => resolveOptions({ env, bodyTimeoutMs: 0 })).toThrow(/bodyTimeoutMs/);
    expect(() => resolveOptions({ env, bodyTimeoutMs: 2 ** 31 })).toThrow(/bodyTimeoutMs/);
  });
});
