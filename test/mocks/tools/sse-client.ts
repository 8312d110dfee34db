import { createFrameDecoder, type SseFrame } from '../../../src/protocol/sse/index.js';

/** A minimal SSE reader for tests: the frames and comments of one GET /sse, as they arrive. */
export async function openStream(url: string): Promise<{
  frames: SseFrame[];
  comments: string[];
  next(predicate?: (f: SseFrame) => boolean, timeoutMs?: number): Promise<SseFrame>;
  ended: Promise<void>;
  close(): void;
}> {
  const controller = new AbortController();
  const response = await fetch(url, { headers: { accept: 'text/event-stream' }, signal: controller.signal });
  const frames: SseFrame[] = [];
  const comments: string[] = [];
  let wake = () => {};
  const decoder = createFrameDecoder({
    onFrame: (f) => {
      frames.push(f);
      wake();
    },
    onComment: (c) => comments.push(c),
  });
  const ended = (async () => {
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) decoder.feed(chunk);
    } catch {
      // aborted by close()
    }
    wake();
  })();
  let taken = 0;
  return {
    frames,
    comments,
    ended,
    close: () => controller.abort(),
    async next(predicate = () => true, timeoutMs = 3000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        while (taken < frames.length) {
          const f = frames[taken++]!;
          if (predicate(f)) return f;
        }
        if (Date.now() > deadline) throw new Error(`no frame within ${timeoutMs} ms (${frames.length} seen)`);
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, 50);
        });
      }
    },
  };
}

export function post(endpointUrl: string, body: unknown): Promise<Response> {
  return fetch(endpointUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

export const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 't', version: '1' } },
};
