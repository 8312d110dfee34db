import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, test } from 'vitest';
import {
  MessagesClient,
  type MessagesClientOptions,
  StreamError,
} from '../../../src/clients/messages/index.js';
import type { MessageRequest } from '../../../src/protocol/messages/index.js';
import {
  type Handler,
  MESSAGE,
  type RawService,
  rawService,
  SSE_HEADERS,
  streamBody,
} from './raw-service.js';

const REQUEST: MessageRequest = {
  model: 'model-x',
  max_tokens: 64,
  messages: [{ role: 'user', content: 'hi' }],
};

let services: RawService[] = [];
afterEach(async () => {
  await Promise.all(services.map((s) => s.close()));
  services = [];
});

async function serve(handler: Handler): Promise<RawService> {
  const service = await rawService(handler);
  services.push(service);
  return service;
}

function clientFor(service: RawService, options: MessagesClientOptions = {}): MessagesClient {
  return new MessagesClient({
    env: { WIRECHECK_BASE_URL: service.url, WIRECHECK_API_KEY: 'sk-test' },
    maxRetries: 0,
    ...options,
  });
}

async function rejection(promise: Promise<unknown>): Promise<StreamError> {
  try {
    await promise;
  } catch (error) {
    return error as StreamError;
  }
  throw new Error('expected a rejection');
}

/** Write `piece` until the client goes away (back-pressure respected); resolves with the bytes written. */
function writeForever(res: ServerResponse, piece: string): Promise<number> {
  return new Promise((resolve) => {
    let written = 0;
    let done = false;
    res.on('close', () => {
      done = true;
      resolve(written);
    });
    const pump = () => {
      while (!done) {
        written += piece.length;
        if (!res.write(piece)) {
          res.once('drain', pump);
          return;
        }
      }
    };
    pump();
  });
}

const [startFrame] = streamBody().split('\n\n');
const START = `${startFrame}\n\n`;
const CHUNK = 'x'.repeat(64 * 1024);

describe('messages client: bounded reading of a hostile service', () => {
  test('a stream line that never ends fails the request at the 16 MiB line limit and closes the connection', async () => {
    let sent: Promise<number> = Promise.resolve(0);
    const service = await serve((_req, res) => {
      res.writeHead(200, SSE_HEADERS);
      res.write(`${START}event: content_block_delta\ndata: `);
      sent = writeForever(res, CHUNK);
    });
    const error = await rejection(clientFor(service).stream(REQUEST).finalMessage());
    expect(error).toBeInstanceOf(StreamError);
    expect(error.kind).toBe('stream');
    expect(error.message).toContain('maxLineLength');
    expect(error.message).toContain('16777216-character limit');
    // The service stops because the client closed: it wrote a little more than the limit.
    expect(await sent).toBeLessThan(64 * 1024 * 1024);
  });

  test('a frame that never ends fails the request at the frame limit', async () => {
    const service = await serve((_req, res) => {
      res.writeHead(200, SSE_HEADERS);
      res.write(`${START}event: content_block_delta\n`);
      void writeForever(res, `data: ${'y'.repeat(1000)}\n`);
    });
    const error = await rejection(clientFor(service).create({ ...REQUEST, stream: true }));
    expect(error).toBeInstanceOf(StreamError);
    expect(error.message).toContain('maxFrameLength');
  });

  test('data nested deeper than 512 levels fails the request before anything walks it', async () => {
    const depth = 200_000;
    const service = await serve((_req, res) => {
      res.writeHead(200, SSE_HEADERS);
      res.end(
        `${START}event: content_block_start\ndata: {"type":"content_block_start","x":${'['.repeat(depth)}${']'.repeat(depth)}}\n\n`,
      );
    });
    const error = await rejection(clientFor(service).stream(REQUEST).finalMessage());
    expect(error).toBeInstanceOf(StreamError);
    expect(error.message).toContain('512-level limit (maxDepth)');
  });

  test('a buffered body past maxBodyBytes is a StreamError naming the limit; a deep one too', async () => {
    const endless = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"text":"');
      void writeForever(res, CHUNK);
    });
    const big = await rejection(clientFor(endless, { maxBodyBytes: 1024 * 1024 }).create(REQUEST));
    expect(big).toBeInstanceOf(StreamError);
    expect(big.message).toContain('1048576-byte limit (maxBodyBytes)');

    const deep = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`{"content":${'['.repeat(100_000)}${']'.repeat(100_000)}}`);
    });
    const nested = await rejection(clientFor(deep).create(REQUEST));
    expect(nested.message).toContain('malformed response body');
    expect(nested.message).toContain('maxDepth');
  });

  test('a stream past maxBodyBytes fails too, and an honest one within it passes', async () => {
    const service = await serve((_req, res) => {
      res.writeHead(200, SSE_HEADERS);
      res.write(START);
      void writeForever(res, 'event: ping\ndata: {"type":"ping"}\n\n'.repeat(100));
    });
    const error = await rejection(
      clientFor(service, { maxBodyBytes: 256 * 1024 })
        .stream(REQUEST)
        .finalMessage(),
    );
    expect(error).toBeInstanceOf(StreamError);
    expect(error.message).toContain('262144-byte limit (maxBodyBytes)');

    const honest = await serve((_req, res) => {
      res.writeHead(200, SSE_HEADERS);
      res.end(streamBody());
    });
    expect(
      await clientFor(honest, { maxBodyBytes: 64 * 1024 })
        .stream(REQUEST)
        .finalMessage(),
    ).toEqual(MESSAGE);
  });
});
