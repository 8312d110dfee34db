import { type IncomingHttpHeaders, request } from 'node:http';
import { createFrameDecoder, type SseFrame } from '../../../src/protocol/sse/index.js';

/** An open event stream, read with our own SSE decoder; every wait is bounded. */
export interface OpenStream {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly frames: SseFrame[];
  readonly comments: string[];
  /** Resolves when the server ended the stream. */
  readonly ended: Promise<void>;
  /** The n-th frame (0-based), waiting for it up to `timeoutMs`. */
  frame(n: number, timeoutMs?: number): Promise<SseFrame>;
  /** The first `message` frame whose JSON has this id. */
  reply(id: number | string, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** Parsed data of every `message` frame so far. */
  messages(): Record<string, unknown>[];
  waitFor(test: () => boolean, timeoutMs?: number): Promise<void>;
  close(): void;
}

export function openStream(url: string, headers: Record<string, string> = {}): Promise<OpenStream> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { accept: 'text/event-stream', ...headers }, agent: false });
    req.on('error', reject);
    req.on('response', (res) => {
      const frames: SseFrame[] = [];
      const comments: string[] = [];
      const waiters = new Set<() => void>();
      const wake = () => {
        for (const w of [...waiters]) w();
      };
      const decoder = createFrameDecoder({
        onFrame: (f) => {
          frames.push(f);
          wake();
        },
        onComment: (c) => {
          comments.push(c);
          wake();
        },
      });
      let endedResolve!: () => void;
      const ended = new Promise<void>((r) => {
        endedResolve = r;
      });
      res.on('data', (chunk: Buffer) => decoder.feed(chunk));
      res.on('end', () => {
        endedResolve();
        wake();
      });
      res.on('close', () => {
        endedResolve();
        wake();
      });
      res.on('error', () => {});
      const waitFor = (test: () => boolean, timeoutMs = 5_000): Promise<void> =>
        new Promise((ok, fail) => {
          if (test()) return ok();
          const timer = setTimeout(() => {
            waiters.delete(check);
            fail(new Error(`timed out after ${timeoutMs} ms; frames so far: ${JSON.stringify(frames)}`));
          }, timeoutMs);
          const check = () => {
            if (!test()) return;
            clearTimeout(timer);
            waiters.delete(check);
            ok();
          };
          waiters.add(check);
        });
      const messages = () =>
        frames.filter((f) => f.event === 'message').map((f) => JSON.parse(f.data) as Record<string, unknown>);
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        frames,
        comments,
        ended,
        frame: async (n, timeoutMs) => {
          await waitFor(() => frames.length > n, timeoutMs);
          return frames[n] as SseFrame;
        },
        reply: async (id, timeoutMs) => {
          const find = () => messages().find((m) => m.id === id);
          await waitFor(() => find() !== undefined, timeoutMs);
          return find() as Record<string, unknown>;
        },
        messages,
        waitFor,
        close: () => {
          req.destroy();
          res.destroy();
        },
      });
    });
    req.end();
  });
}

export interface PostResult {
  readonly status: number;
  readonly body: string;
  readonly contentType: string | null;
}

export async function post(
  url: string,
  body: string | object,
  headers: Record<string, string> = { 'content-type': 'application/json' },
): Promise<PostResult> {
  const res = await fetch(url, {
    method: 'POST',
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, body: await res.text(), contentType: res.headers.get('content-type') };
}

/** Poll `test` every 10 ms up to `timeoutMs`. */
export async function eventually(test: () => boolean, timeoutMs = 5_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!test()) {
    if (Date.now() > until) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export const INITIALIZE_PARAMS = {
  protocolVersion: '2024-11-05',
  capabilities: {},
  clientInfo: { name: 'wirecheck-test', version: '0' },
};
