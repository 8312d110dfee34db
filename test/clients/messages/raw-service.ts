import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eventsOfMessage, type Message } from '../../../src/protocol/messages/index.js';
import { encodeEvent } from '../../../src/protocol/sse/index.js';

export interface RecordedRequest {
  method: string | undefined;
  url: string | undefined;
  headers: IncomingHttpHeaders;
  body: string;
}

export type Handler = (req: IncomingMessage, res: ServerResponse, attempt: number) => unknown;

export interface RawService {
  /** Base URL, no trailing slash, no /v1. */
  url: string;
  requests: RecordedRequest[];
  /** Responses whose connection closed before the server finished writing them. */
  clientClosed: number;
  /** Resolves at the next response closed before it finished (the client went away). */
  nextClientClose(): Promise<void>;
  close(): Promise<void>;
}

/** A bare node:http server on 127.0.0.1:0 that records every request and runs `handler`. */
export async function rawService(handler: Handler): Promise<RawService> {
  const requests: RecordedRequest[] = [];
  let waiting: (() => void)[] = [];
  const service: RawService = {
    url: '',
    requests,
    clientClosed: 0,
    nextClientClose: () => new Promise((resolve) => waiting.push(resolve)),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({
        method: req.method,
        url: req.url,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      res.on('close', () => {
        if (res.writableFinished) return;
        service.clientClosed++;
        const resolvers = waiting;
        waiting = [];
        for (const resolve of resolvers) resolve();
      });
      void handler(req, res, requests.length);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  service.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return service;
}

/** A port nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Text with 2-, 3- and 4-byte UTF-8 characters; tool input with an escaped and a multi-byte string. */
export const MESSAGE: Message = {
  id: 'msg_01',
  type: 'message',
  role: 'assistant',
  model: 'model-x',
  content: [
    { type: 'text', text: 'Grüße, мир — 👋 ready' },
    {
      type: 'tool_use',
      id: 'toolu_01',
      name: 'bash',
      input: { command: 'echo "ünï ✓ 🚀"\nls', restart: false },
    },
  ],
  stop_reason: 'tool_use',
  stop_sequence: null,
  usage: { input_tokens: 12, output_tokens: 34 },
};

/** The SSE body streaming MESSAGE, with deltas cut mid-word and mid-JSON. */
export function streamBody(message: Message = MESSAGE): string {
  return eventsOfMessage(message, [
    [3, 9, 15],
    [4, 13, 20, 31],
  ])
    .map((e) => encodeEvent(e))
    .join('');
}

export const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };

/** Write `text` as UTF-8 in slices of `size` bytes (splitting characters), yielding between slices. */
export async function writeSliced(res: ServerResponse, text: string, size: number): Promise<void> {
  const bytes = Buffer.from(text, 'utf8');
  for (let i = 0; i < bytes.length; i += size) {
    res.write(bytes.subarray(i, i + size));
    await new Promise((resolve) => setImmediate(resolve));
  }
}

export function errorJson(type: string, message: string): string {
  return JSON.stringify({ type: 'error', error: { type, message }, request_id: 'req_body' });
}
