import { bytesOfChunk } from '../../fixtures/chunks.js';
import { locateFrames } from '../../fixtures/frames.js';
import type { ToolSession } from '../../fixtures/schema.js';
import { parseJsonBounded } from '../../protocol/json/bounded.js';
import { classifyMessage, type JsonRpcId } from '../../protocol/jsonrpc/index.js';
import { METHODS, TOOL_SSE_EVENTS } from '../../protocol/mcp/index.js';

/** A recorded client message the live client's messages are matched against. */
export interface RecordedClientMessage {
  /** Index in the recording's `messages`. */
  readonly index: number;
  readonly atMs: number;
  readonly kind: 'request' | 'notification' | 'other';
  /** What a live message must match: the method, and for `tools/call` the tool name. */
  readonly key: string;
  readonly id?: JsonRpcId;
}

/** Bytes of one recorded chunk (or the part of it inside one step). */
export interface ToolReplayPart {
  readonly bytes: Buffer;
  readonly atMs: number;
  /** Index of the recorded chunk (stdio: of the line); parts of one chunk go out in one write when no wait falls between. */
  readonly chunk: number;
}

/**
 * One thing the server sent: a JSON-RPC message (`message`, a whole line or SSE frame,
 * maybe cut into several recorded chunks), or other bytes of the stream (`raw`: comments,
 * keep-alives, events of other names, a non-JSON stdout line).
 */
export interface ToolReplayStep {
  readonly kind: 'message' | 'raw';
  readonly parts: readonly ToolReplayPart[];
  readonly atMs: number;
  /** A message: its text (line or frame data) and parsed value. */
  readonly text?: string;
  readonly value?: unknown;
  /** A reply: the client request (index into `client`) it answers; its id is replaced by the live one. */
  readonly replyTo?: number;
}

export interface ToolReplayPlan {
  /** `http`: messages only (as stdio's, one step each), which every transport sends in its own framing. */
  readonly transport: 'stdio' | 'sse' | 'http';
  readonly client: readonly RecordedClientMessage[];
  readonly steps: readonly ToolReplayStep[];
  /** SSE: the server ended the stream (so the replay ends it too after the last step). */
  readonly serverEnded: boolean;
}

/** What a live or recorded message is matched by: `method` or `tools/call name`. */
export function matchKeyOf(value: unknown): {
  kind: RecordedClientMessage['kind'];
  key: string;
  id?: JsonRpcId;
} {
  const c = classifyMessage(value);
  if (c.kind !== 'request' && c.kind !== 'notification') return { kind: 'other', key: '' };
  const { method } = c.message;
  const params = c.message.params as { name?: unknown } | undefined;
  const key =
    method === METHODS.toolsCall && typeof params?.name === 'string' ? `${method} ${params.name}` : method;
  return c.kind === 'request' ? { kind: 'request', key, id: c.message.id } : { kind: 'notification', key };
}

/**
 * A recorded message's value, within the limits every read of a target's JSON keeps: a message
 * nested deeper (or longer) is no value here, and is replayed as its recorded bytes, since
 * writing it again with a live id would recurse past the stack.
 */
function parse(text: string): unknown {
  const parsed = parseJsonBounded(text);
  return parsed.ok ? parsed.value : undefined;
}

/**
 * The replay of a recorded tool session, as data: the client messages to match and the
 * server's output in recorded order, each reply tied to the request it answers. Pure.
 */
export function toolReplayPlanOf(session: ToolSession): ToolReplayPlan {
  const client: RecordedClientMessage[] = [];
  /** Recorded request id -> index into `client`, for requests not answered yet. */
  const open = new Map<string, number>();
  const idKey = (id: JsonRpcId) => `${typeof id}:${String(id)}`;
  const replyOf = new Map<number, number>(); // message index -> client index
  for (const [index, m] of session.messages.entries()) {
    const value = parse(m.text);
    if (m.direction === 'client->server') {
      const match = matchKeyOf(value);
      client.push({ index, atMs: m.atMs, ...match });
      if (match.kind === 'request' && match.id !== undefined) open.set(idKey(match.id), client.length - 1);
      continue;
    }
    const c = classifyMessage(value);
    if ((c.kind === 'success' || c.kind === 'error') && c.message.id !== null) {
      const at = open.get(idKey(c.message.id));
      if (at !== undefined) {
        open.delete(idKey(c.message.id));
        replyOf.set(index, at);
      }
    }
  }
  const serverMessages = [...session.messages.entries()].filter(([, m]) => m.direction === 'server->client');
  const messageStep = (index: number, parts: ToolReplayPart[], text: string): ToolReplayStep => {
    const replyTo = replyOf.get(index);
    return {
      kind: 'message',
      parts,
      atMs: parts[0]?.atMs ?? 0,
      text,
      value: parse(text),
      ...(replyTo !== undefined && { replyTo }),
    };
  };
  if (session.transport === 'stdio' || session.stream === undefined) {
    const steps = serverMessages.map(([index, m], chunk): ToolReplayStep => {
      const parts = [{ bytes: Buffer.from(m.unterminated ? m.text : `${m.text}\n`), atMs: m.atMs, chunk }];
      // A cut line is only its start, whatever that start parses as.
      return m.cut || parse(m.text) === undefined
        ? { kind: 'raw', parts, atMs: m.atMs }
        : messageStep(index, parts, m.text);
    });
    return { transport: session.transport === 'http' ? 'http' : 'stdio', client, steps, serverEnded: false };
  }
  return {
    transport: 'sse',
    client,
    steps: sseSteps(session, serverMessages, messageStep),
    serverEnded: session.stream.end === 'complete',
  };
}

/**
 * The stream after its `endpoint` event (the mock announces its own) cut into steps: each
 * `message` frame is one step made of the pieces of the recorded chunks it spans; the bytes
 * between frames (comments, blank lines, other events) are raw steps, one per chunk.
 */
function sseSteps(
  session: ToolSession,
  serverMessages: readonly [number, ToolSession['messages'][number]][],
  messageStep: (index: number, parts: ToolReplayPart[], text: string) => ToolReplayStep,
): ToolReplayStep[] {
  const chunks = session.stream!.chunks.map((c) => ({ bytes: bytesOfChunk(c), atMs: c.atMs }));
  const body = Buffer.concat(chunks.map((c) => c.bytes));
  const { frames } = locateFrames(body);
  const starts: number[] = [];
  let offset = 0;
  for (const c of chunks) {
    starts.push(offset);
    offset += c.bytes.length;
  }
  /**
   * The parts of body[from, to), cut at chunk boundaries. From the first chunk that ends after
   * `from` (a binary search): walking every chunk for every frame was quadratic, 23 s for a
   * session of 40,000 messages.
   */
  const partsOf = (from: number, to: number): ToolReplayPart[] => {
    const out: ToolReplayPart[] = [];
    for (let i = firstChunkEndingAfter(from); i < chunks.length && starts[i]! < to; i++) {
      const c = chunks[i]!;
      const start = starts[i]!;
      const a = Math.max(from, start);
      const b = Math.min(to, start + c.bytes.length);
      if (a < b) out.push({ bytes: c.bytes.subarray(a - start, b - start), atMs: c.atMs, chunk: i });
    }
    return out;
  };
  const firstChunkEndingAfter = (offset: number): number => {
    let low = 0;
    let high = chunks.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (starts[mid]! + chunks[mid]!.bytes.length > offset) high = mid;
      else low = mid + 1;
    }
    return low;
  };
  const steps: ToolReplayStep[] = [];
  const raw = (from: number, to: number) => {
    for (const part of partsOf(from, to)) steps.push({ kind: 'raw', parts: [part], atMs: part.atMs });
  };
  const first = frames[0];
  let cursor = first?.event === TOOL_SSE_EVENTS.endpoint ? first.end : 0;
  let k = 0;
  for (const frame of frames) {
    if (frame.end <= cursor) continue;
    if (frame.event !== undefined && frame.event !== TOOL_SSE_EVENTS.message) continue;
    raw(cursor, frame.start);
    const listed = serverMessages[k++];
    const parts = partsOf(frame.start, frame.end);
    steps.push(
      listed === undefined
        ? { kind: 'raw', parts, atMs: parts[0]?.atMs ?? 0 }
        : messageStep(listed[0], parts, frame.data),
    );
    cursor = frame.end;
  }
  raw(cursor, body.length);
  return steps;
}
