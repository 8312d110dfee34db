import type { StreamStep } from '../../../src/mocks/messages/index.js';
import type { Message } from '../../../src/protocol/messages/index.js';
import { StreamAccumulator } from '../../../src/protocol/messages/index.js';
import { createFrameDecoder, type SseFrame } from '../../../src/protocol/sse/index.js';

/** A message with a text block (multi-byte characters) and a tool_use block. */
export const SAMPLE: Message = {
  id: 'msg_sample',
  type: 'message',
  role: 'assistant',
  model: 'mock-model',
  content: [
    { type: 'text', text: 'Héllo wörld — 你好 👋 here is a command:' },
    { type: 'tool_use', id: 'toolu_sample', name: 'bash', input: { command: 'echo "hi there" && ls -la' } },
  ],
  stop_reason: 'tool_use',
  stop_sequence: null,
  usage: { input_tokens: 42, output_tokens: 24 },
};
export const SAMPLE_SPLITS = [
  [3, 9, 17, 20],
  [1, 9, 14, 30],
];

/** What a byte stream decodes to: SSE frames, comments, and the reduced message (or the reducer's error). */
export interface Decoded {
  frames: SseFrame[];
  comments: string[];
  invalidLines: string[];
  unterminated: string;
  message: Message | undefined;
  error: Error | undefined;
  /** Frames the reducer saw (pings included), in order. */
  eventTypes: string[];
}

export function decodeChunks(chunks: Iterable<Uint8Array | string>): Decoded {
  const frames: SseFrame[] = [];
  const comments: string[] = [];
  const invalidLines: string[] = [];
  const decoder = createFrameDecoder({
    onFrame: (f) => frames.push(f),
    onComment: (c) => comments.push(c),
    onInvalidLine: (line) => invalidLines.push(line),
  });
  for (const c of chunks) decoder.feed(c);
  const unterminated = decoder.end();
  const acc = new StreamAccumulator();
  const eventTypes: string[] = [];
  let error: Error | undefined;
  let message: Message | undefined;
  try {
    for (const f of frames) {
      const data = JSON.parse(f.data) as { type: string };
      eventTypes.push(data.type);
      acc.push(data);
    }
    message = acc.finish();
  } catch (e) {
    error = e as Error;
  }
  return { frames, comments, invalidLines, unterminated, message, error, eventTypes };
}

/** The bytes of the plan's write steps, in order. */
export function writesOf(steps: readonly StreamStep[]): Uint8Array[] {
  const enc = new TextEncoder();
  return steps.flatMap((s) =>
    s.kind === 'write' ? [typeof s.data === 'string' ? enc.encode(s.data) : s.data] : [],
  );
}

export function bytesOf(steps: readonly StreamStep[]): Buffer {
  return Buffer.concat(writesOf(steps));
}

/** Read a fetch response body to its end as chunks (a cut connection rejects). */
export async function readChunks(response: Response): Promise<Uint8Array[]> {
  const chunks: Uint8Array[] = [];
  for await (const c of response.body as AsyncIterable<Uint8Array>) chunks.push(c);
  return chunks;
}

export function messagesBody(
  text: string,
  extra: Record<string, unknown> = {},
): { model: string; max_tokens: number; messages: unknown[] } & Record<string, unknown> {
  return { model: 'mock-model', max_tokens: 1024, messages: [{ role: 'user', content: text }], ...extra };
}

export const KEY = { 'x-api-key': 'test-key', 'content-type': 'application/json' };

/** A reply as a scenario may return it: blocks of types the spec does not describe, typed through. */
export const WITH_OTHER_BLOCKS = {
  ...SAMPLE,
  content: [
    { type: 'thinking', thinking: 'Let me think: "quoted" ünï', signature: 'EqQBCkYIARgCIkB' },
    { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix' },
    { type: 'server_tool_use', id: 'srvtoolu_01', name: 'web_search', input: { query: 'wire check' } },
    {
      type: 'web_search_tool_result',
      tool_use_id: 'srvtoolu_01',
      content: [{ type: 'web_search_result', url: 'https://example.com' }],
    },
    { type: 'text', text: 'Done.' },
  ],
} as unknown as Message;
